//! Loading a registered dataset by name: resolve its files, then parse (or read the
//! parsed cache).

use recs_core::ItemAttributes;

use crate::attribute_file::{AttributeFilter, load_item_attributes};
use crate::dataset::Dataset;
use crate::error::{DataError, Result};
use crate::movielens::{load_movielens, load_movielens_100k};
use crate::msweb::{MsWebOptions, load_msweb};
use crate::registry::{DatasetKind, spec};
use crate::resolve::Resolver;

/// Loads the registered dataset `name` (`ml-100k`, `msweb`, `ml-1m`, …) with default
/// options (MS Web: test cases are the training people, items are visited vroots).
///
/// ```no_run
/// let data = recs_data::load_named("ml-100k", &recs_data::Resolver::from_env())?;
/// assert_eq!(data.n_events(), 100_000);
/// # Ok::<(), recs_data::DataError>(())
/// ```
///
/// # Errors
/// Unknown name, files not found or not verified (see [`Resolver::resolve`]), parse
/// errors, or a name that is not an interaction dataset (`ml-100k-cast`).
pub fn load_named(name: &str, resolver: &Resolver) -> Result<Dataset> {
    load_named_with(name, resolver, &MsWebOptions::default())
}

/// [`load_named`] with explicit MS Web options.
///
/// # Errors
/// As [`load_named`].
pub fn load_named_with(name: &str, resolver: &Resolver, msweb: &MsWebOptions) -> Result<Dataset> {
    let spec = spec(name)?;
    let resolved = resolver.resolve(spec)?;
    let dir = &resolved.dir;
    let mut dataset = match spec.kind {
        DatasetKind::MovieLens100K => load_movielens_100k(dir)?,
        DatasetKind::MovieLens(release) => load_movielens(dir, release, name)?,
        DatasetKind::MsWeb => {
            let mut d = load_msweb(
                &dir.join("anonymous-msweb.data"),
                &dir.join("anonymous-msweb.test"),
                msweb,
            )?;
            d.name = name.to_string();
            d
        }
        DatasetKind::ItemAttributes => {
            return Err(DataError::invalid(
                "dataset",
                name,
                "an interaction dataset (attribute files load with load_cast)",
            ));
        }
    };
    dataset.sources = resolved.files;
    Ok(dataset)
}

/// Loads `ml-100k-cast/cast.tsv` as attributes of `ml_100k`'s items, filtered by `filter`
/// (Schein et al. 2005: `top_n: Some(10), min_items: 2`).
///
/// # Errors
/// As [`Resolver::resolve`] and [`load_item_attributes`].
pub fn load_cast(
    resolver: &Resolver,
    ml_100k: &Dataset,
    filter: &AttributeFilter,
) -> Result<ItemAttributes> {
    let resolved = resolver.resolve(spec("ml-100k-cast")?)?;
    load_item_attributes(&resolved.dir.join("cast.tsv"), &ml_100k.items, filter)
}
