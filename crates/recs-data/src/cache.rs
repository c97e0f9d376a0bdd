//! A binary cache of parsed datasets (bincode), keyed by the sources' sha256 and the
//! crate version. An entry is trusted only when its own digest, the crate version and the
//! key all match; anything else is reported and rebuilt.
//!
//! File layout: the 8 bytes `RECSDS01`, the 64 hex digits of the payload's sha256, then
//! the payload (bincode, standard configuration). Encoding and decoding live in
//! [`encode`] and [`decode`] only, so the serialisation crate can change in one place.

use std::io::Write;
use std::path::PathBuf;

use recs_core::{DuplicatePolicy, Event, IdMap, Interactions, ItemAttributes};
use serde::{Deserialize, Serialize};

use crate::dataset::{Dataset, Feedback, ItemInfo, SourceFile, UserInfo};
use crate::error::{DataError, Result};
use crate::msweb::MsWebOptions;
use crate::resolve::Resolver;

const MAGIC: &[u8; 8] = b"RECSDS01";

/// What a cache lookup found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheStatus {
    /// A valid entry was used.
    Hit,
    /// No entry existed; the dataset was parsed and stored.
    Miss,
    /// An entry for other sources or another crate version was replaced.
    Stale,
    /// An unreadable or damaged entry was replaced.
    Corrupt,
}

/// A directory of parsed datasets.
#[derive(Debug, Clone)]
pub struct DatasetCache {
    dir: PathBuf,
}

#[derive(Serialize, Deserialize)]
struct Matrix {
    users: Vec<u32>,
    items: Vec<u32>,
    values: Vec<f32>,
    timestamps: Option<Vec<i64>>,
}

#[derive(Serialize, Deserialize)]
struct Attributes {
    vocabulary: Vec<String>,
    pairs: Vec<(u32, u32, f32)>,
}

#[derive(Serialize, Deserialize)]
struct Snapshot {
    version: String,
    key: String,
    name: String,
    users: Vec<String>,
    items: Vec<String>,
    interactions: Matrix,
    test: Option<Matrix>,
    attributes: Option<Attributes>,
    item_info: Vec<ItemInfo>,
    user_info: Vec<UserInfo>,
    feedback: Feedback,
    sources: Vec<SourceFile>,
}

fn to_matrix(m: &Interactions) -> Matrix {
    let n = m.n_events();
    let mut out = Matrix {
        users: Vec::with_capacity(n),
        items: Vec::with_capacity(n),
        values: Vec::with_capacity(n),
        timestamps: m.has_timestamps().then(|| Vec::with_capacity(n)),
    };
    for e in m.events() {
        out.users.push(e.user);
        out.items.push(e.item);
        out.values.push(e.value);
        if let (Some(t), Some(ts)) = (e.timestamp, out.timestamps.as_mut()) {
            ts.push(t);
        }
    }
    out
}

fn from_matrix(m: Matrix, n_users: usize, n_items: usize) -> Result<Interactions> {
    let n = m.users.len();
    if m.items.len() != n
        || m.values.len() != n
        || m.timestamps.as_ref().is_some_and(|t| t.len() != n)
    {
        return Err(recs_core::RecsError::LengthMismatch {
            what: "cached events",
            expected: n,
            found: m.items.len(),
        }
        .into());
    }
    let events = (0..n).map(|k| Event {
        user: m.users[k],
        item: m.items[k],
        value: m.values[k],
        timestamp: m.timestamps.as_ref().map(|t| t[k]),
    });
    Ok(Interactions::from_events(n_users, n_items, events, DuplicatePolicy::Error)?)
}

fn id_map(ids: &[String]) -> Result<IdMap> {
    let mut map = IdMap::new();
    for id in ids {
        map.insert(id)?;
    }
    Ok(map)
}

/// Serialises a snapshot: magic, payload digest, payload.
fn encode(snapshot: &Snapshot) -> std::result::Result<Vec<u8>, String> {
    let payload = bincode::serde::encode_to_vec(snapshot, bincode::config::standard())
        .map_err(|e| e.to_string())?;
    let mut out = Vec::with_capacity(payload.len() + 72);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(crate::sha256_bytes(&payload).as_bytes());
    out.extend_from_slice(&payload);
    Ok(out)
}

/// Reads a snapshot back; `None` when the bytes are damaged in any way.
fn decode(bytes: &[u8]) -> Option<Snapshot> {
    let rest = bytes.strip_prefix(MAGIC)?;
    if rest.len() < 64 {
        return None;
    }
    let (digest, payload) = rest.split_at(64);
    if digest != crate::sha256_bytes(payload).as_bytes() {
        return None;
    }
    let (snapshot, used) =
        bincode::serde::decode_from_slice(payload, bincode::config::standard()).ok()?;
    (used == payload.len()).then_some(snapshot)
}

impl DatasetCache {
    /// A cache stored in `dir` (created on first store).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        DatasetCache { dir: dir.into() }
    }

    /// The cache inside a resolver's cache directory (`<cache>/parsed`), if it has one.
    pub fn for_resolver(resolver: &Resolver) -> Option<Self> {
        resolver.cache_dir().map(|d| DatasetCache::new(d.join("parsed")))
    }

    /// The key of a dataset parsed from `sources` with options described by `options`:
    /// the sha256 of the crate version, the options and every source digest.
    pub fn key(sources: &[SourceFile], options: &str) -> String {
        let mut text = format!("recs-data {}\n{options}\n", env!("CARGO_PKG_VERSION"));
        for s in sources {
            text.push_str(&s.sha256);
            text.push('\n');
        }
        crate::sha256_bytes(text.as_bytes())
    }

    fn path(&self, slot: &str) -> PathBuf {
        self.dir.join(format!("{slot}.bin"))
    }

    /// The dataset stored in `slot` under `key`, with what was found.
    ///
    /// # Errors
    /// Only I/O errors other than "not found"; damaged entries are reported as
    /// [`CacheStatus::Corrupt`], never returned.
    pub fn get(&self, slot: &str, key: &str) -> Result<(Option<Dataset>, CacheStatus)> {
        let path = self.path(slot);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok((None, CacheStatus::Miss));
            }
            Err(e) => return Err(DataError::io(&path, e)),
        };
        let Some(snapshot) = decode(&bytes) else { return Ok((None, CacheStatus::Corrupt)) };
        if snapshot.version != env!("CARGO_PKG_VERSION") || snapshot.key != key {
            return Ok((None, CacheStatus::Stale));
        }
        match restore(snapshot) {
            Ok(d) => Ok((Some(d), CacheStatus::Hit)),
            Err(_) => Ok((None, CacheStatus::Corrupt)),
        }
    }

    /// Stores `dataset` in `slot` under `key`, atomically (temporary file + rename).
    ///
    /// # Errors
    /// I/O errors, or a dataset the encoder refuses.
    pub fn put(&self, slot: &str, key: &str, dataset: &Dataset) -> Result<PathBuf> {
        let path = self.path(slot);
        let snapshot = Snapshot {
            version: env!("CARGO_PKG_VERSION").to_string(),
            key: key.to_string(),
            name: dataset.name.clone(),
            users: dataset.users.iter().map(str::to_string).collect(),
            items: dataset.items.iter().map(str::to_string).collect(),
            interactions: to_matrix(&dataset.interactions),
            test: dataset.test.as_ref().map(to_matrix),
            attributes: dataset.item_attributes.as_ref().map(|a| Attributes {
                vocabulary: a.vocabulary().iter().map(str::to_string).collect(),
                pairs: (0..a.n_items() as u32)
                    .flat_map(|i| {
                        a.item_attributes(i)
                            .iter()
                            .zip(a.item_weights(i))
                            .map(move |(&k, &w)| (i, k, w))
                    })
                    .collect(),
            }),
            item_info: dataset.item_info.clone(),
            user_info: dataset.user_info.clone(),
            feedback: dataset.feedback,
            sources: dataset.sources.clone(),
        };
        let bytes = encode(&snapshot)
            .map_err(|message| DataError::Cache { path: path.clone(), message })?;
        std::fs::create_dir_all(&self.dir).map_err(|e| DataError::io(&self.dir, e))?;
        let mut tmp =
            tempfile::NamedTempFile::new_in(&self.dir).map_err(|e| DataError::io(&self.dir, e))?;
        tmp.write_all(&bytes).map_err(|e| DataError::io(tmp.path(), e))?;
        tmp.persist(&path).map_err(|e| DataError::io(&path, e.error))?;
        Ok(path)
    }
}

fn restore(s: Snapshot) -> Result<Dataset> {
    let users = id_map(&s.users)?;
    let items = id_map(&s.items)?;
    let (n_users, n_items) = (users.len(), items.len());
    let interactions = from_matrix(s.interactions, n_users, n_items)?;
    let mut d = Dataset::new(s.name, interactions, users, items, s.feedback)?;
    d.test = s.test.map(|m| from_matrix(m, n_users, n_items)).transpose()?;
    d.item_attributes = s
        .attributes
        .map(|a| -> Result<ItemAttributes> {
            Ok(ItemAttributes::from_pairs(n_items, id_map(&a.vocabulary)?, a.pairs)?)
        })
        .transpose()?;
    if !(s.item_info.is_empty() || s.item_info.len() == n_items)
        || !(s.user_info.is_empty() || s.user_info.len() == n_users)
    {
        return Err(DataError::invalid("cache", "metadata", "one entry per item and user"));
    }
    d.item_info = s.item_info;
    d.user_info = s.user_info;
    d.sources = s.sources;
    Ok(d)
}

/// [`crate::load_named_with`] through a parsed-dataset cache: the sources are resolved and
/// hashed, then a valid cache entry is used or the dataset is parsed and stored.
///
/// # Errors
/// As [`crate::load_named_with`], plus cache I/O errors.
pub fn load_named_cached(
    name: &str,
    resolver: &Resolver,
    msweb: &MsWebOptions,
    cache: &DatasetCache,
) -> Result<(Dataset, CacheStatus)> {
    let spec = crate::registry::spec(name)?;
    let resolved = resolver.resolve(spec)?;
    let options = format!("{name} {msweb:?}");
    let key = DatasetCache::key(&resolved.files, &options);
    let slot = format!("{name}-{}", &crate::sha256_bytes(options.as_bytes())[..12]);
    let (found, status) = cache.get(&slot, &key)?;
    if let Some(dataset) = found {
        return Ok((dataset, status));
    }
    let dataset = crate::named::load_named_with(name, resolver, msweb)?;
    cache.put(&slot, &key, &dataset)?;
    Ok((dataset, status))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Dataset {
        let format = crate::DelimitedFormat::movielens_100k();
        let mut d =
            crate::parse_delimited(b"1\t2\t3\t4\n1\t3\t5\t6\n7\t2\t1\t8\n", "x", &format).unwrap();
        let vocabulary = IdMap::from_ids_sorted(["g"]).unwrap();
        d.item_attributes = Some(ItemAttributes::from_pairs(2, vocabulary, [(1, 0, 1.0)]).unwrap());
        d.item_info = vec![
            ItemInfo { title: Some("Café".into()), ..ItemInfo::default() },
            ItemInfo::default(),
        ];
        d.test = Some(
            Interactions::from_events(2, 2, [Event::new(1, 1, 2.0)], DuplicatePolicy::Error)
                .unwrap(),
        );
        d
    }

    fn same(a: &Dataset, b: &Dataset) {
        assert_eq!(
            a.interactions.events().collect::<Vec<_>>(),
            b.interactions.events().collect::<Vec<_>>()
        );
        assert_eq!(a.users, b.users);
        assert_eq!(a.items, b.items);
        assert_eq!(a.item_info, b.item_info);
        assert_eq!(
            a.test.as_ref().unwrap().events().collect::<Vec<_>>(),
            b.test.as_ref().unwrap().events().collect::<Vec<_>>()
        );
        assert_eq!(
            a.item_attributes.as_ref().unwrap().item_attributes(1),
            b.item_attributes.as_ref().unwrap().item_attributes(1)
        );
    }

    #[test]
    fn round_trip_hit_stale_and_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DatasetCache::new(dir.path());
        let d = sample();
        assert_eq!(cache.get("s", "k1").unwrap().1, CacheStatus::Miss);
        let path = cache.put("s", "k1", &d).unwrap();
        let (back, status) = cache.get("s", "k1").unwrap();
        assert_eq!(status, CacheStatus::Hit);
        same(&d, &back.unwrap());
        assert_eq!(cache.get("s", "k2").unwrap().1, CacheStatus::Stale);
        // Flip one payload byte: the digest no longer matches.
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(cache.get("s", "k1").unwrap().1, CacheStatus::Corrupt);
        // Truncated and foreign files as well.
        std::fs::write(&path, &bytes[..20]).unwrap();
        assert_eq!(cache.get("s", "k1").unwrap().1, CacheStatus::Corrupt);
        std::fs::write(&path, b"hello").unwrap();
        assert_eq!(cache.get("s", "k1").unwrap().1, CacheStatus::Corrupt);
    }

    #[test]
    fn keys_depend_on_sources_options_and_version() {
        let s = |h: &str| vec![SourceFile { path: "a".into(), sha256: h.into() }];
        assert_eq!(DatasetCache::key(&s("1"), "o"), DatasetCache::key(&s("1"), "o"));
        assert_ne!(DatasetCache::key(&s("1"), "o"), DatasetCache::key(&s("2"), "o"));
        assert_ne!(DatasetCache::key(&s("1"), "o"), DatasetCache::key(&s("1"), "p"));
    }

    #[test]
    fn load_named_cached_refuses_unverified_sources() {
        let data = tempfile::tempdir().unwrap();
        let dir = data.path().join("ml-100k");
        std::fs::create_dir_all(&dir).unwrap();
        // Not the registered files: their digests differ, so resolution refuses them.
        std::fs::write(dir.join("u.data"), b"1\t1\t5\t1\n").unwrap();
        std::fs::write(dir.join("u.item"), b"1|T|d||u|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0\n")
            .unwrap();
        std::fs::write(dir.join("u.user"), b"1|24|M|x|1\n").unwrap();
        let resolver = Resolver::new().with_data_dir(Some(data.path().into()));
        let cache = DatasetCache::new(data.path().join("cache"));
        let e =
            load_named_cached("ml-100k", &resolver, &MsWebOptions::default(), &cache).unwrap_err();
        assert!(matches!(e, DataError::Checksum { .. }));
    }
}
