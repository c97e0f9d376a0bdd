//! Finding a dataset's files: `--data-dir`, then `RECS_DATA_DIR`, then the user cache
//! directory, then (feature `download`) the official URL — verified and written atomically.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::dataset::SourceFile;
use crate::error::{DataError, Result};
use crate::registry::DatasetSpec;
use derive_setters::Setters;

/// The environment variable naming a directory that holds datasets (`<dir>/<name>/...`).
pub const DATA_DIR_ENV: &str = "RECS_DATA_DIR";

/// Where to look for datasets, and whether to download missing ones.
///
/// A dataset `name` is found in a root directory when `<root>/<name>/` holds every file
/// the registry lists for it. Roots are searched in order: the explicit data directory
/// (`--data-dir`), the directory named by `RECS_DATA_DIR`, the cache directory (by
/// default `<user cache dir>/recs`). Files found are checked against the pinned sha256;
/// a mismatch is an error naming the file and both digests, never a silent fallback.
///
/// ```
/// use recs_data::Resolver;
/// let dir = tempfile::tempdir()?;
/// let resolver = Resolver::new().with_data_dir(Some(dir.path().into())).with_download(false);
/// let err = resolver.resolve(recs_data::spec("ml-100k")?).unwrap_err();
/// assert!(err.to_string().contains("RECS_DATA_DIR"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, Setters)]
#[setters(prefix = "with_")]
pub struct Resolver {
    /// The explicit data directory searched first (the `--data-dir` flag).
    data_dir: Option<PathBuf>,
    /// The directory searched second (normally from `RECS_DATA_DIR`).
    env_dir: Option<PathBuf>,
    /// The cache directory: searched last, and where downloads go.
    cache_dir: Option<PathBuf>,
    /// Whether a dataset found nowhere may be downloaded into the cache directory.
    download: bool,
    /// Where download progress is reported (nowhere by default).
    progress: Option<Arc<dyn DownloadProgress>>,
}

/// Receives the progress of a download. This crate never prints: a front end that wants a
/// progress bar implements this and hands it to [`Resolver::with_progress`].
pub trait DownloadProgress: Send + Sync + std::fmt::Debug {
    /// A download of `name` starts; `total_bytes` when the server announced a length.
    fn start(&self, name: &str, total_bytes: Option<u64>);
    /// `bytes` more have arrived.
    fn advance(&self, bytes: u64);
    /// The download ended (successfully or not).
    fn finish(&self);
}

/// A dataset's files located on disk and verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The directory holding the files.
    pub dir: PathBuf,
    /// Each file with its sha256, in registry order.
    pub files: Vec<SourceFile>,
}

impl Resolver {
    /// A resolver with no directory at all and downloads off; see [`Resolver::from_env`].
    pub fn new() -> Self {
        Resolver::default()
    }

    /// The usual resolver: `RECS_DATA_DIR` if set, the user cache directory
    /// (`<cache>/recs`), downloads on when the `download` feature is built, no progress
    /// reported.
    pub fn from_env() -> Self {
        Resolver {
            data_dir: None,
            env_dir: std::env::var_os(DATA_DIR_ENV).filter(|v| !v.is_empty()).map(PathBuf::from),
            cache_dir: dirs::cache_dir().map(|d| d.join("recs")),
            download: cfg!(feature = "download"),
            progress: None,
        }
    }

    /// The cache directory, if any.
    pub fn cache_dir(&self) -> Option<&Path> {
        self.cache_dir.as_deref()
    }

    /// The roots searched, in order.
    pub fn roots(&self) -> Vec<PathBuf> {
        [&self.data_dir, &self.env_dir, &self.cache_dir].into_iter().flatten().cloned().collect()
    }

    /// Locates (and if needed downloads) the files of `spec`, verifying pinned digests.
    ///
    /// # Errors
    /// [`DataError::Checksum`] for a file whose digest differs from the pinned one;
    /// [`DataError::NotFound`] when the files are nowhere and cannot be downloaded (the
    /// message says to set `RECS_DATA_DIR` or connect); download errors.
    pub fn resolve(&self, spec: &DatasetSpec) -> Result<Resolved> {
        for root in self.roots() {
            let dir = root.join(&spec.name);
            if spec.files.iter().all(|f| dir.join(&f.name).is_file()) {
                return verify(spec, &dir);
            }
        }
        match (&spec.url, &self.cache_dir) {
            (Some(url), Some(cache)) if self.download => {
                let dir = cache.join(&spec.name);
                download_dataset(url, spec, &dir, self.progress.as_deref())?;
                verify(spec, &dir)
            }
            _ => Err(self.not_found(spec)),
        }
    }

    fn not_found(&self, spec: &DatasetSpec) -> DataError {
        let searched = self
            .roots()
            .iter()
            .map(|r| r.join(&spec.name).display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let files = spec.files.iter().map(|f| f.name.as_str()).collect::<Vec<_>>().join(", ");
        let hint = match (&spec.url, &spec.manual) {
            (_, Some(manual)) => format!(
                "{manual}; then set {DATA_DIR_ENV} to the directory holding `{}/`",
                spec.name
            ),
            (Some(url), None) => format!(
                "set {DATA_DIR_ENV} (or --data-dir) to a directory holding `{}/` with {files}, \
                 or connect to the network so it can be downloaded from {url}{}",
                spec.name,
                if cfg!(feature = "download") {
                    ""
                } else {
                    " (this build lacks the `download` feature)"
                }
            ),
            (None, None) => format!("set {DATA_DIR_ENV} to a directory holding `{}/`", spec.name),
        };
        DataError::NotFound {
            name: spec.name.clone(),
            searched: if searched.is_empty() {
                "nowhere: no directory configured".into()
            } else {
                searched
            },
            hint,
        }
    }
}

/// Hashes every file of `spec` in `dir` and checks pinned digests.
fn verify(spec: &DatasetSpec, dir: &Path) -> Result<Resolved> {
    let mut files = Vec::with_capacity(spec.files.len());
    for f in &spec.files {
        let path = dir.join(&f.name);
        let actual = crate::sha256_file(&path)?;
        if let Some(expected) = &f.sha256
            && *expected != actual
        {
            return Err(DataError::Checksum { file: path, expected: expected.clone(), actual });
        }
        files.push(SourceFile { path, sha256: actual });
    }
    Ok(Resolved { dir: dir.to_path_buf(), files })
}

/// Copies `reader` into a new temporary file in `dir`, hashing on the way.
/// Returns the temporary file (deleted on drop unless persisted), its sha256 and length.
fn spool(
    reader: &mut dyn Read,
    dir: &Path,
    progress: Option<&dyn DownloadProgress>,
) -> std::io::Result<(tempfile::NamedTempFile, String, u64)> {
    use sha2::Digest;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    let mut hasher = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut total = 0u64;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..n]);
        tmp.write_all(&buf[..n])?;
        total += n as u64;
        if let Some(progress) = progress {
            progress.advance(n as u64);
        }
    }
    tmp.as_file().sync_all()?;
    Ok((tmp, crate::hex(&hasher.finalize()), total))
}

/// Extracts the files of `spec` (found by file name, in any folder) from the zip archive
/// `archive` into `dir`, each through a temporary file renamed into place after its
/// digest checked out. Use it for an archive downloaded by hand on an offline machine.
///
/// # Errors
/// An unreadable archive, a missing member, a digest mismatch ([`DataError::Checksum`],
/// and the refused file is not written), or I/O errors.
pub fn extract(archive: &Path, spec: &DatasetSpec, dir: &Path) -> Result<()> {
    let file = std::fs::File::open(archive).map_err(|e| DataError::io(archive, e))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| DataError::Archive {
        archive: archive.to_path_buf(),
        message: format!("not a readable zip archive: {e}"),
    })?;
    std::fs::create_dir_all(dir).map_err(|e| DataError::io(dir, e))?;
    let names: Vec<String> =
        zip.file_names().filter_map(|name| name.ok()).map(|name| name.into_owned()).collect();
    for f in &spec.files {
        let member = names
            .iter()
            .find(|n| n.as_str() == f.name || n.ends_with(&format!("/{}", f.name)))
            .ok_or_else(|| DataError::Archive {
                archive: archive.to_path_buf(),
                message: format!("no member named {}", f.name),
            })?;
        let mut entry = zip.by_name(member).map_err(|e| DataError::Archive {
            archive: archive.to_path_buf(),
            message: format!("member {member}: {e}"),
        })?;
        let target = dir.join(&f.name);
        let (tmp, actual, _) = spool(&mut entry, dir, None).map_err(|e| DataError::Archive {
            archive: archive.to_path_buf(),
            message: format!("member {member}: {e}"),
        })?;
        if let Some(expected) = &f.sha256
            && *expected != actual
        {
            return Err(DataError::Checksum { file: target, expected: expected.clone(), actual });
        }
        tmp.persist(&target).map_err(|e| DataError::io(&target, e.error))?;
    }
    Ok(())
}

fn download_dataset(
    url: &str,
    spec: &DatasetSpec,
    dir: &Path,
    progress: Option<&dyn DownloadProgress>,
) -> Result<()> {
    #[cfg(feature = "download")]
    {
        let parent = dir.parent().unwrap_or(dir);
        std::fs::create_dir_all(parent).map_err(|e| DataError::io(parent, e))?;
        let archive = download(url, parent, None, progress)?;
        extract(archive.path(), spec, dir)
    }
    #[cfg(not(feature = "download"))]
    {
        let _ = (spec, dir, progress);
        Err(DataError::Download {
            url: url.to_string(),
            message: "this build lacks the `download` feature".into(),
        })
    }
}

/// Downloads `url` into a temporary file in `dir`, checking the length announced by the
/// server and, when given, the sha256. The file is deleted when the returned handle is
/// dropped unless persisted; on any error nothing is left behind.
///
/// # Errors
/// [`DataError::Download`] for network errors, HTTP error statuses and truncated bodies;
/// [`DataError::Checksum`] when `sha256` is given and differs.
#[cfg(feature = "download")]
pub fn download(
    url: &str,
    dir: &Path,
    sha256: Option<&str>,
    progress: Option<&dyn DownloadProgress>,
) -> Result<tempfile::NamedTempFile> {
    let fail = |message: String| DataError::Download { url: url.to_string(), message };
    let response = ureq::get(url).call().map_err(|e| fail(e.to_string()))?;
    let length: Option<u64> = response
        .headers()
        .get("content-length")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok());
    if let Some(progress) = progress {
        progress.start(url.rsplit('/').next().unwrap_or(url), length);
    }
    let mut reader = response.into_body().into_reader();
    let spooled = spool(&mut reader, dir, progress);
    if let Some(progress) = progress {
        progress.finish();
    }
    let (tmp, actual, received) =
        spooled.map_err(|e| fail(format!("while reading the body: {e}")))?;
    if let Some(expected) = length
        && expected != received
    {
        return Err(fail(format!("truncated body: received {received} of {expected} bytes")));
    }
    if let Some(expected) = sha256
        && expected != actual
    {
        return Err(DataError::Checksum {
            file: PathBuf::from(url),
            expected: expected.to_string(),
            actual,
        });
    }
    Ok(tmp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{DatasetKind, RegistryFile};

    fn spec(files: &[(&str, &[u8])], url: Option<String>) -> DatasetSpec {
        DatasetSpec {
            name: "toy".into(),
            description: "toy".into(),
            licence: "none".into(),
            url,
            manual: None,
            files: files
                .iter()
                .map(|(n, b)| RegistryFile {
                    name: n.to_string(),
                    sha256: Some(crate::sha256_bytes(b)),
                })
                .collect(),
            kind: DatasetKind::MsWeb,
        }
    }

    #[test]
    fn search_order_is_flag_env_cache() {
        let (a, b, c) = (
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
        );
        let s = spec(&[("f", b"1")], None);
        for root in [b.path(), c.path()] {
            std::fs::create_dir_all(root.join("toy")).unwrap();
            std::fs::write(root.join("toy/f"), b"1").unwrap();
        }
        let r = Resolver::new()
            .with_data_dir(Some(a.path().into()))
            .with_env_dir(Some(b.path().into()))
            .with_cache_dir(Some(c.path().into()));
        assert_eq!(r.resolve(&s).unwrap().dir, b.path().join("toy"));
        std::fs::create_dir_all(a.path().join("toy")).unwrap();
        std::fs::write(a.path().join("toy/f"), b"1").unwrap();
        let found = r.resolve(&s).unwrap();
        assert_eq!(found.dir, a.path().join("toy"));
        assert_eq!(found.files[0].sha256, crate::sha256_bytes(b"1"));
    }

    #[test]
    fn a_wrong_local_file_is_refused_with_both_digests() {
        let a = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(a.path().join("toy")).unwrap();
        std::fs::write(a.path().join("toy/f"), b"2").unwrap();
        let s = spec(&[("f", b"1")], None);
        let e = Resolver::new().with_data_dir(Some(a.path().into())).resolve(&s).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains(&crate::sha256_bytes(b"1")) && text.contains(&crate::sha256_bytes(b"2")),
            "{text}"
        );
        assert!(text.contains("toy/f"), "{text}");
    }

    #[test]
    fn offline_and_missing_tells_what_to_do() {
        let s = spec(&[("f", b"1")], Some("http://example.invalid/x.zip".into()));
        let e = Resolver::new().resolve(&s).unwrap_err().to_string();
        assert!(e.contains("RECS_DATA_DIR") && e.contains("http://example.invalid/x.zip"), "{e}");
    }

    fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        {
            let mut w = zip::ZipWriter::new(&mut out);
            let options = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated);
            for (name, bytes) in files {
                w.start_file(*name, options).unwrap();
                w.write_all(bytes).unwrap();
            }
            w.finish().unwrap();
        }
        out.into_inner()
    }

    #[test]
    fn extraction_finds_members_in_folders_and_checks_digests() {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("a.zip");
        std::fs::write(&archive, zip_of(&[("toy/f", b"1"), ("toy/g", b"2")])).unwrap();
        let s = spec(&[("f", b"1"), ("g", b"2")], None);
        extract(&archive, &s, &dir.path().join("out")).unwrap();
        assert_eq!(std::fs::read(dir.path().join("out/g")).unwrap(), b"2");
        let bad = spec(&[("f", b"other")], None);
        let e = extract(&archive, &bad, &dir.path().join("bad")).unwrap_err();
        assert!(matches!(e, DataError::Checksum { .. }));
        // The refused file was never renamed into place, and no temporary file remains.
        let left: Vec<_> = std::fs::read_dir(dir.path().join("bad")).unwrap().collect();
        assert!(left.is_empty());
        let missing = spec(&[("h", b"1")], None);
        assert!(
            extract(&archive, &missing, &dir.path().join("m"))
                .unwrap_err()
                .to_string()
                .contains("no member named h")
        );
        std::fs::write(&archive, b"not a zip").unwrap();
        assert!(extract(&archive, &s, &dir.path().join("z")).is_err());
    }

    #[cfg(feature = "download")]
    mod loopback {
        use super::*;
        use std::io::{BufRead, BufReader};
        use std::net::TcpListener;

        /// Serves each canned response once, in order, on 127.0.0.1; returns the base URL.
        fn serve(responses: Vec<Vec<u8>>) -> String {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let addr = listener.local_addr().unwrap();
            std::thread::spawn(move || {
                for response in responses {
                    let Ok((mut stream, _)) = listener.accept() else { return };
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut line = String::new();
                    while reader.read_line(&mut line).unwrap_or(0) > 2 {
                        line.clear();
                    }
                    let _ = stream.write_all(&response);
                    let _ = stream.flush();
                }
            });
            format!("http://{addr}")
        }

        /// Progress events as text, in order.
        #[derive(Debug, Default)]
        struct Recorded(std::sync::Mutex<Vec<String>>);

        impl DownloadProgress for Recorded {
            fn start(&self, name: &str, total_bytes: Option<u64>) {
                let total = total_bytes.map_or("?".to_string(), |t| t.to_string());
                self.0.lock().unwrap().push(format!("start {name} {total}"));
            }
            fn advance(&self, bytes: u64) {
                self.0.lock().unwrap().push(format!("advance {bytes}"));
            }
            fn finish(&self) {
                self.0.lock().unwrap().push("finish".to_string());
            }
        }

        /// A 200 response announcing `length` bytes and carrying `body` (fewer bytes
        /// when cut short).
        fn response(length: usize, body: &[u8]) -> Vec<u8> {
            let head =
                format!("HTTP/1.1 200 OK\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n");
            [head.as_bytes(), body].concat()
        }

        fn ok(body: &[u8]) -> Vec<u8> {
            response(body.len(), body)
        }

        /// The one-file dataset `toy` (file `f` holding `1`) as `response` serves it at
        /// `toy.zip`, with a fresh cache folder and a resolver that downloads into it.
        fn toy_download(response: Vec<u8>) -> (DatasetSpec, tempfile::TempDir, Resolver) {
            let url = format!("{}/toy.zip", serve(vec![response]));
            let cache = tempfile::tempdir().unwrap();
            let resolver =
                Resolver::new().with_cache_dir(Some(cache.path().into())).with_download(true);
            (spec(&[("f", b"1")], Some(url)), cache, resolver)
        }

        #[test]
        fn good_body_is_verified_extracted_and_found_next_time() {
            let body = zip_of(&[("toy/f", b"1")]);
            let (s, cache, r) = toy_download(ok(&body));
            let seen = Arc::new(Recorded::default());
            let r = r.with_progress(Some(seen.clone()));
            let found = r.resolve(&s).unwrap();
            assert_eq!(found.dir, cache.path().join("toy"));
            // The front end heard of the download from start to finish, every byte of it.
            let events = seen.0.lock().unwrap().clone();
            assert_eq!(events.first(), Some(&format!("start toy.zip {}", body.len())));
            assert_eq!(events.last().map(String::as_str), Some("finish"));
            let bytes: u64 =
                events.iter().filter_map(|e| e.strip_prefix("advance ")?.parse::<u64>().ok()).sum();
            assert_eq!(bytes, body.len() as u64);
            assert_eq!(std::fs::read(found.dir.join("f")).unwrap(), b"1");
            // Only the extracted dataset remains: the archive was a temporary file.
            let entries: Vec<_> =
                std::fs::read_dir(cache.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
            assert_eq!(entries, vec![std::ffi::OsString::from("toy")]);
            // The server is gone; a second resolve finds the files in the cache.
            assert!(r.resolve(&s).is_ok());
        }

        #[test]
        fn truncated_body_is_an_error_and_leaves_nothing() {
            let body = zip_of(&[("toy/f", b"1")]);
            let (s, cache, r) = toy_download(response(body.len(), &body[..body.len() / 2]));
            let e = r.resolve(&s).unwrap_err();
            assert!(matches!(e, DataError::Download { .. }), "{e}");
            let left: Vec<_> = std::fs::read_dir(cache.path()).unwrap().collect();
            assert!(left.is_empty(), "left behind: {left:?}");
        }

        #[test]
        fn wrong_checksum_is_refused_naming_both_digests() {
            let body = zip_of(&[("toy/f", b"tampered")]);
            let (s, cache, r) = toy_download(ok(&body));
            let e = r.resolve(&s).unwrap_err().to_string();
            assert!(
                e.contains(&crate::sha256_bytes(b"1"))
                    && e.contains(&crate::sha256_bytes(b"tampered")),
                "{e}"
            );
            assert!(!cache.path().join("toy/f").exists());
            // Archive-level digest check as well.
            let url = format!("{}/x", serve(vec![ok(b"abc")]));
            let e =
                download(&url, cache.path(), Some(&crate::sha256_bytes(b"abd")), None).unwrap_err();
            assert!(matches!(e, DataError::Checksum { .. }));
        }

        #[test]
        fn http_errors_are_reported() {
            let url = format!(
                "{}/x",
                serve(vec![
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                        .to_vec()
                ])
            );
            let cache = tempfile::tempdir().unwrap();
            let e = download(&url, cache.path(), None, None).unwrap_err().to_string();
            assert!(e.contains("404"), "{e}");
        }
    }
}
