//! Finding files of flank's shared data (`$FLANK_DATA`, else `../shared/data`, else the
//! project's sibling at build time): the one lookup every command uses; and reading a text
//! file with a size limit, so no input file is read unbounded; writing an output file
//! whole or not at all (through a temporary file renamed over it; devices written in place).

use std::path::{Path, PathBuf};

/// The data directory used when `FLANK_DATA` is not set: relative to the current directory,
/// so it is right when flank runs from the project root.
pub const DEFAULT_DATA_DIR: &str = "../shared/data";

/// The fallback: the project's sibling `shared/data` at build time (absolute), so that
/// `flank match --openings xot` also works outside the project root.
pub const BUILD_DATA_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data");

/// The data directories in the order they are tried: `$FLANK_DATA` alone when it is set and
/// not empty (an explicit setting is never silently replaced by another directory); else
/// [`DEFAULT_DATA_DIR`], then [`BUILD_DATA_DIR`].
pub fn data_dirs() -> Vec<PathBuf> {
    if let Some(v) = std::env::var_os("FLANK_DATA").filter(|v| !v.is_empty()) {
        return vec![PathBuf::from(v)];
    }
    let mut dirs = vec![PathBuf::from(DEFAULT_DATA_DIR)];
    let build = PathBuf::from(BUILD_DATA_DIR);
    if !dirs.contains(&build) {
        dirs.push(build);
    }
    dirs
}

/// The first `dir/rel` among `dirs` that exists.
///
/// Errors: a one-line reason naming every path tried.
pub fn find_in(dirs: &[PathBuf], rel: &str) -> Result<PathBuf, String> {
    for d in dirs {
        let p = d.join(rel);
        if p.exists() {
            return Ok(p);
        }
    }
    let tried: Vec<String> = dirs
        .iter()
        .map(|d| d.join(rel).display().to_string())
        .collect();
    Err(format!(
        "data file {rel} not found (tried {}; set FLANK_DATA to the shared data directory)",
        tried.join(", ")
    ))
}

/// The path of the data file `rel` (e.g. `openings/xot_small.txt`), looked up in
/// [`data_dirs`] order.
///
/// Errors: not found in any of them (the message lists the paths tried).
pub fn data_file(rel: impl AsRef<Path>) -> Result<PathBuf, String> {
    find_in(&data_dirs(), &rel.as_ref().to_string_lossy())
}

/// The first of [`data_dirs`] that exists as a directory (for tools that read many files
/// below it, like `flank train`).
///
/// Errors: none exists (the message lists the directories tried).
pub fn data_root() -> Result<PathBuf, String> {
    let dirs = data_dirs();
    if let Some(d) = dirs.iter().find(|d| d.is_dir()) {
        return Ok(d.clone());
    }
    let tried: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    Err(format!(
        "shared data directory not found (tried {}; set FLANK_DATA to it)",
        tried.join(", ")
    ))
}

/// The largest text file flank reads whole (openings, games, problem sets, self-play
/// records): 1 GiB.
pub const MAX_TEXT_FILE_BYTES: u64 = 1 << 30;

/// The bytes of the file `path`, read whole but never more than `limit` bytes (an endless
/// file such as a pipe is refused at the limit, not read until memory runs out).
///
/// # Errors
/// The file cannot be opened or read, or it is longer than `limit` (`InvalidData`, with a
/// one-line reason).
pub fn read_bytes(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "longer than {} MiB, the most flank reads of such a file",
                limit >> 20
            ),
        ));
    }
    Ok(bytes)
}

/// The text of the file `path`: [`read_bytes`] up to [`MAX_TEXT_FILE_BYTES`], as UTF-8.
///
/// # Errors
/// Those of [`read_bytes`], or text that is not UTF-8 (`InvalidData`).
pub fn read_text(path: &Path) -> std::io::Result<String> {
    String::from_utf8(read_bytes(path, MAX_TEXT_FILE_BYTES)?)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
}

/// The temporary file beside `path` that [`write_atomically_with`] renames over it: `path`
/// with `.flank-tmp-<pid>` appended.
fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(format!(".flank-tmp-{}", std::process::id()));
    PathBuf::from(name)
}

/// Where a write of `path` goes. `None`: to `path` itself, which exists and is neither a
/// regular file nor a folder (a device such as `/dev/null`, a FIFO): renaming a file over
/// it would replace the device with a regular file. `Some(file)`: through a temporary file
/// renamed over `file`, the file `path` names with its symbolic links followed (a link stays
/// a link), or `path` when nothing is there yet.
///
/// # Errors
/// A loop of symbolic links, or a failure to resolve one.
fn rename_target(path: &Path) -> std::io::Result<Option<PathBuf>> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() && !m.is_dir() => Ok(None),
        Ok(_) => std::fs::canonicalize(path).map(Some),
        Err(_) => {
            // Nothing there, or a symbolic link to nothing: the file it names is created
            // (links followed up to 40 deep, as the kernel does), the link kept.
            let mut file = path.to_path_buf();
            for _ in 0..40 {
                let Ok(target) = std::fs::read_link(&file) else {
                    return Ok(Some(file));
                };
                file = file.parent().unwrap_or(Path::new("")).join(target);
            }
            Err(std::io::Error::other("too many levels of symbolic links"))
        }
    }
}

/// Checks, before long work, that [`write_atomically_with`] will be able to write `path`,
/// and leaves it as it was: the temporary file is created and removed. A device or FIFO is
/// not checked (opening a FIFO waits for its reader, and closing it would end the reader's
/// input).
///
/// # Errors
/// `path` is a folder, or the create failure (a missing folder, no permission).
pub fn check_writable(path: &Path) -> std::io::Result<()> {
    if path.is_dir() {
        return Err(std::io::Error::other("is a folder"));
    }
    match rename_target(path)? {
        None => Ok(()),
        Some(file) => {
            let tmp = temp_path(&file);
            std::fs::File::create(&tmp)?;
            std::fs::remove_file(&tmp)
        }
    }
}

/// Writes `path` with `fill`, which gets a buffered writer: through a temporary file
/// (`path` with `.flank-tmp-<pid>` appended, in the same folder) renamed over the file when
/// `fill` and the write succeed, so a failed write leaves an existing file as it was and no
/// temporary file behind (a killed one leaves the file as it was, and can leave the temporary
/// file). An existing file keeps its permissions (not its hard links: the name gets a new
/// file). A device or FIFO (such as `/dev/null`) is written in place, never replaced; a
/// symbolic link is followed, never replaced (a link to nothing: the file it names is
/// created).
///
/// # Errors
/// `fill`'s error, or the create, write or rename failure (for example `path` is a
/// folder).
pub fn write_atomically_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    use std::io::Write;
    let Some(file) = rename_target(path)? else {
        let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
        fill(&mut w)?;
        return w.flush();
    };
    let tmp = temp_path(&file);
    // An existing file keeps its permissions (a private file stays private).
    let permissions = std::fs::metadata(&file).ok().map(|m| m.permissions());
    let result = std::fs::File::create(&tmp).and_then(|f| {
        let mut w = std::io::BufWriter::new(f);
        fill(&mut w)?;
        w.flush()?;
        drop(w);
        if let Some(p) = permissions {
            std::fs::set_permissions(&tmp, p)?;
        }
        std::fs::rename(&tmp, &file)
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Writes `bytes` to `path` by [`write_atomically_with`].
///
/// # Errors
/// Those of [`write_atomically_with`].
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomically_with(path, |w| w.write_all(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A FIFO is written in place, not replaced by a regular file: the same path that makes
    /// `--out /dev/null` keep the device.
    #[cfg(unix)]
    #[test]
    fn a_fifo_is_written_in_place_and_a_link_stays_a_link() {
        use std::os::unix::ffi::OsStrExt;
        use std::os::unix::fs::FileTypeExt;
        // The file's own type (a link not followed).
        let kind = |p: &Path| std::fs::symlink_metadata(p).unwrap().file_type();
        let dir = std::env::temp_dir().join(format!("flank-write-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
        // SAFETY: `c` is a NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(&fifo).unwrap())
        };
        // The check does not open the FIFO (that would end the reader's input).
        check_writable(&fifo).unwrap();
        write_atomically(&fifo, b"through the pipe").unwrap();
        // Checked before the join: a replaced FIFO would leave the reader waiting.
        assert!(kind(&fifo).is_fifo());
        assert_eq!(reader.join().unwrap(), b"through the pipe");

        let file = dir.join("file.txt");
        let link = dir.join("link.txt");
        std::fs::write(&file, b"old").unwrap();
        std::os::unix::fs::symlink(&file, &link).unwrap();
        write_atomically(&link, b"new").unwrap();
        assert!(kind(&link).is_symlink());
        assert_eq!(std::fs::read(&file).unwrap(), b"new");

        // A link to nothing creates the file it names; permissions are kept.
        let dangling = dir.join("dangling.txt");
        std::os::unix::fs::symlink("made.txt", &dangling).unwrap();
        write_atomically(&dangling, b"made").unwrap();
        assert!(kind(&dangling).is_symlink());
        assert_eq!(std::fs::read(dir.join("made.txt")).unwrap(), b"made");
        std::fs::remove_file(dir.join("made.txt")).unwrap();
        std::fs::remove_file(&dangling).unwrap();
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
            write_atomically(&file, b"new").unwrap();
            let mode = std::fs::metadata(&file).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }

        // A failed fill leaves the file as it was and no temporary file.
        let err = write_atomically_with(&file, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("stopped"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "stopped");
        assert_eq!(std::fs::read(&file).unwrap(), b"new");
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["fifo", "file.txt", "link.txt"]);
        // A missing folder, or a folder as the file, fails the check.
        assert!(check_writable(&dir.join("none/x")).is_err());
        assert_eq!(check_writable(&dir).unwrap_err().to_string(), "is a folder");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn files_are_read_up_to_their_limit() {
        let path = std::env::temp_dir().join(format!("flank-read-{}", std::process::id()));
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read_bytes(&path, 10).unwrap(), b"0123456789");
        let e = read_bytes(&path, 9).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert_eq!(read_text(&path).unwrap(), "0123456789");
        std::fs::write(&path, [0xFF, 0xFE]).unwrap();
        assert_eq!(read_text(&path).unwrap_err().to_string(), "not UTF-8 text");
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn the_first_directory_holding_the_file_wins() {
        let root = std::env::temp_dir().join(format!("flank-data-{}", std::process::id()));
        let (a, b) = (root.join("a"), root.join("b"));
        std::fs::create_dir_all(b.join("openings")).unwrap();
        std::fs::create_dir_all(&a).unwrap();
        std::fs::write(b.join("openings/x.txt"), "f5\n").unwrap();
        let dirs = vec![a.clone(), b.clone()];
        assert_eq!(
            find_in(&dirs, "openings/x.txt").unwrap(),
            b.join("openings/x.txt")
        );
        std::fs::create_dir_all(a.join("openings")).unwrap();
        std::fs::write(a.join("openings/x.txt"), "f5\n").unwrap();
        assert_eq!(
            find_in(&dirs, "openings/x.txt").unwrap(),
            a.join("openings/x.txt")
        );
        let e = find_in(&dirs, "openings/missing.txt").unwrap_err();
        assert_eq!(
            e,
            format!(
                "data file openings/missing.txt not found (tried {}, {}; set FLANK_DATA to the \
                 shared data directory)",
                a.join("openings/missing.txt").display(),
                b.join("openings/missing.txt").display()
            )
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn the_build_directory_is_the_last_resort() {
        let dirs = data_dirs();
        match std::env::var_os("FLANK_DATA").filter(|v| !v.is_empty()) {
            Some(v) => assert_eq!(dirs, vec![PathBuf::from(v)]),
            None => assert_eq!(dirs.last(), Some(&PathBuf::from(BUILD_DATA_DIR))),
        }
        assert!(Path::new(BUILD_DATA_DIR).is_absolute());
    }
}
