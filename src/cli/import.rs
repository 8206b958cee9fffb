//! `slotsim import hadoop CONF_DIR [--out PATH]`.

use super::{emit, open_out, Failure};
use slotsim::error::InputError;
use slotsim::scenario::import::{hadoop, ConfFile};
use std::io::Write;
use std::path::Path;

/// The largest configuration file read.
const MAX_CONF_BYTES: u64 = 16 << 20;

pub fn cmd_import_hadoop(dir: &Path, out: Option<&str>) -> Result<(), Failure> {
    if !dir.is_dir() {
        return Err(InputError::new(
            dir.display().to_string(),
            "not a directory; expected Hadoop's configuration directory (with mapred-site.xml)",
        )
        .into());
    }
    let read = |name: &str| -> Result<Option<(String, String)>, Failure> {
        let p = dir.join(name);
        if !p.exists() {
            return Ok(None);
        }
        let shown = p.display().to_string();
        let bytes = slotsim::scenario::load::read_bounded(&p, MAX_CONF_BYTES)
            .map_err(|e| InputError::new(&shown, format!("cannot read it: {e}")))?;
        let text = String::from_utf8(bytes)
            .map_err(|e| InputError::new(&shown, format!("not UTF-8: {e}")))?;
        Ok(Some((shown, text)))
    };
    let mapred = read("mapred-site.xml")?;
    let hdfs = read("hdfs-site.xml")?;
    let fair = read("fair-scheduler.xml")?;
    let capacity = read("capacity-scheduler.xml")?;
    let slaves = read("slaves")?.map(|(_, t)| {
        t.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .count()
    });
    if mapred.is_none() && fair.is_none() && capacity.is_none() {
        return Err(InputError::new(
            dir.display().to_string(),
            "no mapred-site.xml, fair-scheduler.xml or capacity-scheduler.xml there",
        )
        .into());
    }
    let files: Vec<Option<ConfFile>> = [&mapred, &hdfs, &fair, &capacity]
        .iter()
        .map(|x| {
            x.as_ref().map(|(name, text)| ConfFile {
                name: name.as_str(),
                text: text.as_str(),
            })
        })
        .collect();
    let imported = hadoop(
        files[0].as_ref(),
        files[1].as_ref(),
        files[2].as_ref(),
        files[3].as_ref(),
        slaves,
    )?;
    for w in &imported.warnings {
        eprintln!("warning: {w}");
    }
    match out {
        None | Some("-") => emit(&imported.toml, false),
        Some(p) => {
            let mut o = open_out(p, "--out")?;
            o.write_all(imported.toml.as_bytes())?;
            o.flush()?;
            Ok(())
        }
    }
}
