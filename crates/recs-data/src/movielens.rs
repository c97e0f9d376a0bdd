//! The MovieLens family: 100K (`u.data`, `u.item`, `u.user`), 1M and 10M (`::` files),
//! 20M / 25M / latest (CSV with headers).
//!
//! Items and users are declared by the item and user files; a rating naming an id not
//! declared there is an error at its line. Id maps follow the numeric order of the ids.

use std::io::BufRead;
use std::path::Path;

use recs_core::{IdMap, ItemAttributes};

use crate::dataset::{Dataset, ItemInfo, SourceFile, UserInfo};
use crate::delimited::{DelimitedFormat, id_field, read_events};
use crate::error::{DataError, Result};
use crate::lines::{Declared, Lines, latin1, open, split_into, trim};

/// The 19 genres of MovieLens 100K in the order of `u.genre` and of the flags in `u.item`.
pub const GENRES_100K: [&str; 19] = [
    "unknown",
    "Action",
    "Adventure",
    "Animation",
    "Children's",
    "Comedy",
    "Crime",
    "Documentary",
    "Drama",
    "Fantasy",
    "Film-Noir",
    "Horror",
    "Musical",
    "Mystery",
    "Romance",
    "Sci-Fi",
    "Thriller",
    "War",
    "Western",
];

/// Text encoding of a metadata file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    Utf8,
    Latin1,
}

fn decode(file: &Path, line: usize, bytes: &[u8], encoding: Encoding) -> Result<String> {
    match encoding {
        Encoding::Latin1 => Ok(latin1(bytes)),
        Encoding::Utf8 => std::str::from_utf8(bytes)
            .map(str::to_string)
            .map_err(|_| DataError::parse(file, line, "text in valid UTF-8", bytes)),
    }
}

/// Loads MovieLens 100K from a directory holding `u.data`, `u.item` and `u.user`.
///
/// Items are the 1682 movies of `u.item` (titles decoded from Latin-1, release dates, IMDb
/// URLs; the 19 genre flags become [`ItemAttributes`] with the vocabulary
/// [`GENRES_100K`]); users are the 943 of `u.user` with their demographics.
///
/// # Errors
/// A missing file, any malformed line (naming file and line), a rating naming an
/// undeclared user or movie, or a duplicate (user, movie) pair.
pub fn load_movielens_100k(dir: &Path) -> Result<Dataset> {
    let item_path = dir.join("u.item");
    let user_path = dir.join("u.user");
    let data_path = dir.join("u.data");
    let items = read_100k_items(open(&item_path)?, &item_path)?;
    let users = read_100k_users(open(&user_path)?, &user_path)?;
    let format = DelimitedFormat::movielens_100k();
    let parsed =
        read_events(&|| open(&data_path), &data_path, &format, Some(&users.0), Some(&items.0))?;
    let mut dataset = Dataset::new(
        "ml-100k",
        parsed.interactions,
        parsed.users,
        parsed.items,
        format.feedback(),
    )?;
    dataset.item_info = items.1;
    dataset.item_attributes = Some(items.2);
    dataset.user_info = users.1;
    dataset.sources = sources(&[&data_path, &item_path, &user_path])?;
    Ok(dataset)
}

pub(crate) fn sources(paths: &[&Path]) -> Result<Vec<SourceFile>> {
    paths
        .iter()
        .map(|p| Ok(SourceFile { path: p.to_path_buf(), sha256: crate::sha256_file(p)? }))
        .collect()
}

type ItemTable = (IdMap, Vec<ItemInfo>, ItemAttributes);

/// Reads `u.item`: `id|title|release date|video release date|url|19 genre flags`.
pub(crate) fn read_100k_items<R: BufRead>(reader: R, file: &Path) -> Result<ItemTable> {
    const FIELDS: usize = 5 + GENRES_100K.len();
    let mut lines = Lines::new(reader, file);
    let mut rows: Vec<(String, ItemInfo, Vec<u32>)> = Vec::new();
    let mut declared = Declared::default();
    let mut ranges = Vec::with_capacity(FIELDS);
    while let Some((line_no, line)) = lines.next_record()? {
        let fields = split_into(line, b"|", &mut ranges);
        if fields.len() != FIELDS {
            return Err(DataError::parse(
                file,
                line_no,
                format!("{FIELDS} fields separated by '|' (id, title, dates, url, 19 genre flags)"),
                line,
            ));
        }
        let id = id_field(file, line_no, fields.at(0), "movie id")?.to_string();
        let text = |k: usize| {
            let t = trim(fields.at(k));
            (!t.is_empty()).then(|| latin1(t))
        };
        let info = ItemInfo { title: text(1), release_date: text(2), url: text(4) };
        let mut genres = Vec::new();
        for (g, flag) in (5..fields.len()).map(|k| fields.at(k)).enumerate() {
            match trim(flag) {
                b"1" => genres.push(g as u32),
                b"0" => {}
                other => {
                    return Err(DataError::parse(
                        file,
                        line_no,
                        format!("genre flag {} ({}) to be 0 or 1", g + 1, GENRES_100K[g]),
                        other,
                    ));
                }
            }
        }
        declared.check(file, line_no, &id, "movie id")?;
        rows.push((id, info, genres));
    }
    if rows.is_empty() {
        return Err(DataError::EmptyFile {
            file: file.to_path_buf(),
            expected: "movie lines".into(),
        });
    }
    declared_table(rows, genre_vocabulary(&GENRES_100K)?)
}

fn genre_vocabulary(names: &[&str]) -> Result<IdMap> {
    let mut vocabulary = IdMap::new();
    for name in names {
        vocabulary.insert(name)?;
    }
    Ok(vocabulary)
}

/// Orders declared rows (distinct ids) canonically by id and builds the map, info and
/// attributes.
fn declared_table(rows: Vec<(String, ItemInfo, Vec<u32>)>, vocabulary: IdMap) -> Result<ItemTable> {
    let map = IdMap::from_ids_sorted(rows.iter().map(|r| r.0.as_str()))?;
    let mut info = vec![ItemInfo::default(); rows.len()];
    let mut pairs = Vec::new();
    for (id, item_info, attributes) in rows {
        let index = map.get(&id).unwrap_or(0);
        info[index as usize] = item_info;
        pairs.extend(attributes.into_iter().map(|a| (index, a, 1.0)));
    }
    let attributes = ItemAttributes::from_pairs(map.len(), vocabulary, pairs)?;
    Ok((map, info, attributes))
}

/// Reads `u.user`: `id|age|gender|occupation|zip`.
pub(crate) fn read_100k_users<R: BufRead>(
    reader: R,
    file: &Path,
) -> Result<(IdMap, Vec<UserInfo>)> {
    read_users(reader, file, UserLayout::ML_100K)
}

/// Where a user file keeps each field (the id is always first, five fields in all).
struct UserLayout {
    delimiter: &'static [u8],
    age: usize,
    gender: usize,
    occupation: usize,
    zip: usize,
}

impl UserLayout {
    /// `u.user`: `id|age|gender|occupation|zip`.
    const ML_100K: UserLayout =
        UserLayout { delimiter: b"|", age: 1, gender: 2, occupation: 3, zip: 4 };
    /// `users.dat`: `UserID::Gender::Age::Occupation::Zip-code`.
    const ML_1M: UserLayout =
        UserLayout { delimiter: b"::", age: 2, gender: 1, occupation: 3, zip: 4 };
}

fn text(field: &[u8]) -> Option<String> {
    let t = trim(field);
    (!t.is_empty()).then(|| latin1(t))
}

/// Reads a user file of five fields laid out as `layout` says.
fn read_users<R: BufRead>(
    reader: R,
    file: &Path,
    layout: UserLayout,
) -> Result<(IdMap, Vec<UserInfo>)> {
    let delimiter = layout.delimiter;
    let mut lines = Lines::new(reader, file);
    let mut rows: Vec<(String, UserInfo)> = Vec::new();
    let mut declared = Declared::default();
    let mut ranges = Vec::with_capacity(5);
    while let Some((line_no, line)) = lines.next_record()? {
        let fields = split_into(line, delimiter, &mut ranges);
        if fields.len() != 5 {
            return Err(DataError::parse(
                file,
                line_no,
                format!("5 fields separated by {:?}", String::from_utf8_lossy(delimiter)),
                line,
            ));
        }
        let id = id_field(file, line_no, fields.at(0), "user id")?.to_string();
        let age_text = trim(fields.at(layout.age));
        let age = std::str::from_utf8(age_text)
            .ok()
            .and_then(|s| s.parse::<u32>().ok())
            .ok_or_else(|| DataError::parse(file, line_no, "an integer age", age_text))?;
        let user = UserInfo {
            age: Some(age),
            gender: text(fields.at(layout.gender)),
            occupation: text(fields.at(layout.occupation)),
            zip: text(fields.at(layout.zip)),
        };
        declared.check(file, line_no, &id, "user id")?;
        rows.push((id, user));
    }
    if rows.is_empty() {
        return Err(DataError::EmptyFile {
            file: file.to_path_buf(),
            expected: "user lines".into(),
        });
    }
    let map = IdMap::from_ids_sorted(rows.iter().map(|r| r.0.as_str()))?;
    let mut users = vec![UserInfo::default(); rows.len()];
    for (id, user) in rows {
        users[map.get(&id).unwrap_or(0) as usize] = user;
    }
    Ok((map, users))
}

/// Reads a `movies` file of the 1M/10M (`id::title::Genre|Genre`) or CSV
/// (`movieId,title,genres` with quoting) kind. Genre vocabulary: sorted names;
/// `(no genres listed)` means no genre.
pub(crate) fn read_movies<R: BufRead>(
    reader: R,
    file: &Path,
    csv: bool,
    encoding: Encoding,
) -> Result<ItemTable> {
    let mut rows: Vec<(String, ItemInfo, Vec<String>)> = Vec::new();
    let mut declared = Declared::default();
    let mut push = |line_no: usize, id: &[u8], title: &[u8], genres: &[u8]| -> Result<()> {
        let id = id_field(file, line_no, id, "movie id")?.to_string();
        let title = decode(file, line_no, trim(title), encoding)?;
        let genres = decode(file, line_no, trim(genres), encoding)?;
        let genres: Vec<String> = genres
            .split('|')
            .filter(|g| !g.is_empty() && *g != "(no genres listed)")
            .map(str::to_string)
            .collect();
        declared.check(file, line_no, &id, "movie id")?;
        rows.push((id, ItemInfo { title: Some(title), release_date: None, url: None }, genres));
        Ok(())
    };
    if csv {
        let mut reader =
            csv::ReaderBuilder::new().has_headers(true).flexible(true).from_reader(reader);
        let mut record = csv::ByteRecord::new();
        loop {
            let more = reader.read_byte_record(&mut record).map_err(|e| {
                let line = e.position().map_or(0, |p| p.line() as usize);
                DataError::parse(file, line, "a CSV record movieId,title,genres", e.to_string())
            })?;
            if !more {
                break;
            }
            let line_no = record.position().map_or(0, |p| p.line() as usize);
            if record.len() != 3 {
                return Err(DataError::parse(
                    file,
                    line_no,
                    "3 CSV fields movieId,title,genres",
                    record.as_slice(),
                ));
            }
            push(line_no, &record[0], &record[1], &record[2])?;
        }
    } else {
        let mut lines = Lines::new(reader, file);
        let mut ranges = Vec::with_capacity(3);
        while let Some((line_no, line)) = lines.next_record()? {
            let fields = split_into(line, b"::", &mut ranges);
            if fields.len() != 3 {
                return Err(DataError::parse(
                    file,
                    line_no,
                    "3 fields separated by \"::\" (id, title, genres)",
                    line,
                ));
            }
            push(line_no, fields.at(0), fields.at(1), fields.at(2))?;
        }
    }
    if rows.is_empty() {
        return Err(DataError::EmptyFile {
            file: file.to_path_buf(),
            expected: "movie lines".into(),
        });
    }
    let vocabulary = IdMap::from_ids_sorted(rows.iter().flat_map(|r| r.2.iter()))?;
    let rows = rows
        .into_iter()
        .map(|(id, info, genres)| {
            let mut g: Vec<u32> = genres.iter().filter_map(|n| vocabulary.get(n)).collect();
            g.sort_unstable();
            g.dedup();
            (id, info, g)
        })
        .collect();
    declared_table(rows, vocabulary)
}

/// Parses a MovieLens item file held in memory: `u.item` (100K) when `release` is
/// `None`, otherwise the movies file of `release`. Returns the item map (numeric order),
/// per-item info and genres. `label` names the bytes in errors.
///
/// # Errors
/// As [`load_movielens_100k`] and [`load_movielens`] for their item files.
pub fn parse_movielens_items(
    bytes: &[u8],
    label: &str,
    release: Option<MovieLensRelease>,
) -> Result<(IdMap, Vec<ItemInfo>, ItemAttributes)> {
    let file = Path::new(label);
    match release {
        None => read_100k_items(bytes, file),
        Some(MovieLensRelease::OneMillion) => read_movies(bytes, file, false, Encoding::Latin1),
        Some(MovieLensRelease::TenMillion) => read_movies(bytes, file, false, Encoding::Utf8),
        Some(MovieLensRelease::Csv) => read_movies(bytes, file, true, Encoding::Utf8),
    }
}

/// Which MovieLens release a directory holds; it decides file names and formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MovieLensRelease {
    /// `ratings.dat`, `movies.dat` (Latin-1), `users.dat`; ratings 1–5.
    OneMillion,
    /// `ratings.dat`, `movies.dat` (UTF-8); half-star ratings 0.5–5.
    TenMillion,
    /// `ratings.csv`, `movies.csv` with headers (20M, 25M, 32M, latest, latest-small).
    Csv,
}

/// Loads a MovieLens 1M, 10M or CSV-format release from `dir`.
///
/// Items are declared by the movies file (genres as [`ItemAttributes`], vocabulary in
/// byte order); users by `users.dat` for 1M, otherwise by the ratings themselves.
///
/// # Errors
/// As [`load_movielens_100k`].
pub fn load_movielens(dir: &Path, release: MovieLensRelease, name: &str) -> Result<Dataset> {
    let (ratings, movies, format, csv, encoding) = match release {
        MovieLensRelease::OneMillion => {
            ("ratings.dat", "movies.dat", DelimitedFormat::movielens_1m(), false, Encoding::Latin1)
        }
        MovieLensRelease::TenMillion => {
            ("ratings.dat", "movies.dat", DelimitedFormat::movielens_10m(), false, Encoding::Utf8)
        }
        MovieLensRelease::Csv => {
            ("ratings.csv", "movies.csv", DelimitedFormat::movielens_csv(), true, Encoding::Utf8)
        }
    };
    let ratings_path = dir.join(ratings);
    let movies_path = dir.join(movies);
    let items = read_movies(open(&movies_path)?, &movies_path, csv, encoding)?;
    let mut paths = vec![ratings_path.clone(), movies_path.clone()];
    let users = if release == MovieLensRelease::OneMillion {
        let users_path = dir.join("users.dat");
        let users = read_users(open(&users_path)?, &users_path, UserLayout::ML_1M)?;
        paths.push(users_path);
        Some(users)
    } else {
        None
    };
    let parsed = read_events(
        &|| open(&ratings_path),
        &ratings_path,
        &format,
        users.as_ref().map(|u| &u.0),
        Some(&items.0),
    )?;
    let mut dataset =
        Dataset::new(name, parsed.interactions, parsed.users, parsed.items, format.feedback())?;
    dataset.item_info = items.1;
    dataset.item_attributes = Some(items.2);
    if let Some(users) = users {
        dataset.user_info = users.1;
    }
    let refs: Vec<&Path> = paths.iter().map(|p| p.as_path()).collect();
    dataset.sources = sources(&refs)?;
    Ok(dataset)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, bytes: &[u8]) {
        std::fs::write(dir.join(name), bytes).unwrap();
    }

    const ITEM: &[u8] =
        b"1|Toy Story (1995)|01-Jan-1995||http://x|0|0|0|1|1|1|0|0|0|0|0|0|0|0|0|0|0|0|0\n\
543|Mis\xe9rables, Les (1995)|01-Jan-1995||http://y|0|0|0|0|0|0|0|0|1|0|0|0|1|0|0|0|0|0|0\n\
267|unknown||||1|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0\n";

    fn fixture_100k(dir: &Path) {
        write(dir, "u.item", ITEM);
        write(dir, "u.user", b"1|24|M|technician|85711\n2|53|F|other|94043\n");
        write(dir, "u.data", b"1\t1\t5\t874965758\n2\t543\t4\t875072262\n1\t267\t1\t875071561\n");
    }

    #[test]
    fn movielens_100k_fixture_reads_everything() {
        let dir = tempfile::tempdir().unwrap();
        fixture_100k(dir.path());
        let d = load_movielens_100k(dir.path()).unwrap();
        assert_eq!((d.n_users(), d.n_items(), d.n_events()), (2, 3, 3));
        assert_eq!(d.items.iter().collect::<Vec<_>>(), ["1", "267", "543"]);
        let item = d.items.get("543").unwrap();
        assert_eq!(d.item_info[item as usize].title.as_deref(), Some("Misérables, Les (1995)"));
        let attrs = d.item_attributes.as_ref().unwrap();
        let names = |i: u32| -> Vec<&str> {
            attrs
                .item_attributes(i)
                .iter()
                .map(|&a| attrs.vocabulary().external(a).unwrap())
                .collect()
        };
        assert_eq!(names(0), ["Animation", "Children's", "Comedy"]);
        assert_eq!(names(1), ["unknown"]);
        assert_eq!(d.item_info[1].release_date, None);
        assert_eq!(d.user_info[1].occupation.as_deref(), Some("other"));
        assert_eq!(d.user_info[0].age, Some(24));
        assert_eq!(d.sources.len(), 3);
    }

    /// The error of loading the 100K fixture with the file `name` holding `bytes`.
    fn fixture_error(name: &str, bytes: &[u8]) -> String {
        let dir = tempfile::tempdir().unwrap();
        fixture_100k(dir.path());
        write(dir.path(), name, bytes);
        load_movielens_100k(dir.path()).unwrap_err().to_string()
    }

    #[test]
    fn undeclared_or_repeated_ids_and_bad_flags_are_errors_naming_file_and_line() {
        let cases: [(&str, &[u8], &str); 4] = [
            (
                "u.data",
                b"1\t1\t5\t1\n1\t2\t5\t1\n",
                "u.data:2: expected an item id declared in the item file",
            ),
            (
                "u.item",
                b"1|T|d||u|0|0|0|2|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0\n",
                "u.item:1: expected genre flag 4 (Animation) to be 0 or 1",
            ),
            ("u.item", b"1|T|d||u|0\n", "u.item:1: expected 24 fields"),
            (
                "u.user",
                b"1|24|M|technician|85711\n1|53|F|other|94043\n",
                "u.user:2: expected each user id declared once (id 1 is also declared at line 1)",
            ),
        ];
        for (name, bytes, message) in cases {
            let e = fixture_error(name, bytes);
            assert!(e.contains(message), "{e}");
        }
    }

    #[test]
    fn missing_files_name_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let e = load_movielens_100k(dir.path()).unwrap_err().to_string();
        assert!(e.contains("u.item"), "{e}");
    }

    #[test]
    fn movielens_1m_fixture() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "movies.dat", b"1::Toy Story (1995)::Animation|Children's|Comedy\n2::Jumanji (1995)::Adventure|Children's|Fantasy\n3::Caf\xe9 (1990)::Drama\n");
        write(dir.path(), "users.dat", b"1::F::1::10::48067\n2::M::56::16::70072\n");
        write(
            dir.path(),
            "ratings.dat",
            b"1::1::5::978300760\n2::3::3::978302109\n2::1::4::978301968\n",
        );
        let d = load_movielens(dir.path(), MovieLensRelease::OneMillion, "ml-1m").unwrap();
        assert_eq!((d.n_users(), d.n_items(), d.n_events()), (2, 3, 3));
        assert_eq!(d.item_info[2].title.as_deref(), Some("Café (1990)"));
        assert_eq!(d.user_info[1].age, Some(56));
        assert_eq!(d.user_info[1].gender.as_deref(), Some("M"));
        let attrs = d.item_attributes.unwrap();
        assert_eq!(
            attrs.vocabulary().iter().collect::<Vec<_>>(),
            ["Adventure", "Animation", "Children's", "Comedy", "Drama", "Fantasy"]
        );
        assert_eq!(attrs.item_attributes(2), &[4]);
    }

    #[test]
    fn movielens_10m_fixture_has_half_stars_and_utf8() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "movies.dat",
            "1::Toy Story (1995)::Adventure|Animation\n2::Amélie (2001)::Comedy\n".as_bytes(),
        );
        write(dir.path(), "ratings.dat", b"1::2::4.5::838985046\n7::1::0.5::838983525\n");
        let d = load_movielens(dir.path(), MovieLensRelease::TenMillion, "ml-10m").unwrap();
        assert_eq!(d.interactions.get(0, 1), Some(4.5));
        assert_eq!(d.item_info[1].title.as_deref(), Some("Amélie (2001)"));
        assert!(d.user_info.is_empty());
        write(dir.path(), "movies.dat", b"1::Caf\xe9::Drama\n");
        let e = load_movielens(dir.path(), MovieLensRelease::TenMillion, "x").unwrap_err();
        assert!(e.to_string().contains("movies.dat:1: expected text in valid UTF-8"), "{e}");
        write(dir.path(), "movies.dat", "1::A::Drama\n".as_bytes());
        write(dir.path(), "ratings.dat", b"1::1::0::838985046\n");
        let e = load_movielens(dir.path(), MovieLensRelease::TenMillion, "x").unwrap_err();
        assert!(
            e.to_string().contains("ratings.dat:1: expected a rating between 0.5 and 5"),
            "{e}"
        );
    }

    #[test]
    fn movielens_csv_fixture_handles_quotes_and_headers() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "movies.csv", b"movieId,title,genres\n1,Toy Story (1995),Adventure|Animation\n11,\"American President, The (1995)\",Comedy|Drama|Romance\n99,Nothing (2000),(no genres listed)\n");
        write(dir.path(), "ratings.csv", b"userId,movieId,rating,timestamp\n1,11,3.5,1112486027\n1,1,4.0,1112484676\n3,99,5.0,1\n");
        let d = load_movielens(dir.path(), MovieLensRelease::Csv, "ml-latest").unwrap();
        assert_eq!((d.n_users(), d.n_items(), d.n_events()), (2, 3, 3));
        assert_eq!(d.item_info[1].title.as_deref(), Some("American President, The (1995)"));
        let attrs = d.item_attributes.unwrap();
        assert!(attrs.item_attributes(2).is_empty());
        assert_eq!(attrs.item_attributes(1).len(), 3);
        write(dir.path(), "movies.csv", b"movieId,title,genres\n1,Toy Story (1995)\n");
        let e = load_movielens(dir.path(), MovieLensRelease::Csv, "x").unwrap_err().to_string();
        assert!(e.contains("movies.csv:2: expected 3 CSV fields"), "{e}");
    }
}
