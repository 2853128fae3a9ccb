//! circom / snarkjs witness files (.wtns, versions 1 and 2), checked as snarkpipe's
//! src/circom/wtns.cpp checks them: "wtns", u32 version, u32 section count, then sections
//! (u32 type, u64 size, contents); section 1 = u32 n8 ‖ prime (n8 bytes LE) ‖ u32 count,
//! section 2 = count values of n8 bytes, little-endian canonical integers (not Montgomery).

use crate::field::{limbs_from_le, Limbs, FR};

/// Reads the witness values as canonical (not Montgomery) limbs.
pub fn read(path: &std::path::Path) -> Result<Vec<Limbs<4>>, String> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| format!("{name}: cannot read: {e}"))?;
    parse(&bytes, &name)
}

fn le(b: &[u8], off: usize, n: usize) -> u64 {
    let mut v = 0u64;
    for i in (0..n).rev() {
        v = (v << 8) | b[off + i] as u64;
    }
    v
}

/// Parses a .wtns image (`name` is for messages).
pub fn parse(b: &[u8], name: &str) -> Result<Vec<Limbs<4>>, String> {
    let fail = |section: &str, offset: usize, problem: String| {
        format!("{name}: section {section} at byte offset {offset}: {problem}")
    };
    if b.len() < 12 {
        return Err(fail(
            "file header",
            0,
            format!("the file has {} bytes, fewer than the 12-byte header", b.len()),
        ));
    }
    if &b[0..4] != b"wtns" {
        return Err(fail(
            "file header",
            0,
            "not a .wtns file (the magic bytes are not \"wtns\")".into(),
        ));
    }
    let version = le(b, 4, 4);
    if version == 0 || version > 2 {
        return Err(fail(
            "file header",
            4,
            format!("version {version} is not supported (1..2)"),
        ));
    }
    let count = le(b, 8, 4);
    // (type, offset of contents, size)
    let mut sections: Vec<(u32, usize, usize)> = Vec::new();
    let mut pos = 12usize;
    for i in 0..count {
        if b.len() - pos < 12 {
            return Err(fail(
                "file header",
                pos,
                format!(
                    "section header {i} of {count} is past the end of the file ({} bytes)",
                    b.len()
                ),
            ));
        }
        let ty = le(b, pos, 4) as u32;
        let size = le(b, pos + 4, 8);
        let start = pos + 12;
        if size > (b.len() - start) as u64 {
            let label = match ty {
                1 => "1 (header)".to_string(),
                2 => "2 (witness)".to_string(),
                t => t.to_string(),
            };
            return Err(fail(
                &label,
                pos + 4,
                format!(
                    "the section claims {size} bytes but only {} remain in the file (truncated?)",
                    b.len() - start
                ),
            ));
        }
        sections.push((ty, start, size as usize));
        pos = start + size as usize;
    }
    if pos != b.len() {
        return Err(fail(
            "file header",
            pos,
            format!("{} bytes after the last of the {count} sections", b.len() - pos),
        ));
    }
    let unique = |ty: u32, label: &str| -> Result<(usize, usize), String> {
        let mut found = None;
        for &(t, off, size) in &sections {
            if t == ty {
                if found.is_some() {
                    return Err(fail(label, off - 12, "the section appears more than once".into()));
                }
                found = Some((off, size));
            }
        }
        found.ok_or_else(|| fail(label, b.len(), "the section is missing".into()))
    };

    let (h_off, h_size) = unique(1, "1 (header)")?;
    let h = &b[h_off..h_off + h_size];
    if h.len() < 4 {
        return Err(fail(
            "1 (header)",
            h_off,
            "the header section is too short for n8".into(),
        ));
    }
    let n8 = le(h, 0, 4) as usize;
    if n8 != 32 {
        return Err(fail(
            "1 (header)",
            h_off,
            format!("field size n8 = {n8} bytes; BLS12-381's r needs 32"),
        ));
    }
    if h.len() != 4 + n8 + 4 {
        return Err(fail(
            "1 (header)",
            h_off,
            format!("the header section has {} bytes, expected {}", h.len(), 4 + n8 + 4),
        ));
    }
    let prime = limbs_from_le::<4>(&h[4..36]);
    if prime != FR.modulus {
        return Err(fail(
            "1 (header)",
            h_off + 4,
            format!("curve not supported: the field prime is not BLS12-381's r (limbs {prime:016x?})"),
        ));
    }
    let n_values = le(h, 36, 4) as usize;

    let (w_off, w_size) = unique(2, "2 (witness)")?;
    if w_size != n_values * n8 {
        return Err(fail(
            "2 (witness)",
            w_off,
            format!(
                "nWitness = {n_values} values of {n8} bytes need {} bytes but the section has {w_size}",
                n_values * n8
            ),
        ));
    }
    if n_values == 0 {
        return Err(fail(
            "2 (witness)",
            w_off,
            "the witness is empty (it must start with the constant ONE)".into(),
        ));
    }
    let mut values = Vec::with_capacity(n_values);
    for i in 0..n_values {
        let off = w_off + i * n8;
        let v = limbs_from_le::<4>(&b[off..off + n8]);
        if !FR.is_reduced(&v) {
            return Err(fail(
                "2 (witness)",
                off,
                format!("value {i} is not below the field prime"),
            ));
        }
        values.push(v);
    }
    if values[0] != [1, 0, 0, 0] {
        return Err(fail(
            "2 (witness)",
            w_off,
            "value 0 (wire 0, the constant ONE) is not 1".into(),
        ));
    }
    Ok(values)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A version-2 .wtns image of canonical values, as snarkpipe's write_wtns lays it out.
    pub fn image(values: &[Limbs<4>]) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(b"wtns");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
        out.extend_from_slice(&40u64.to_le_bytes());
        out.extend_from_slice(&32u32.to_le_bytes());
        for l in FR.modulus {
            out.extend_from_slice(&l.to_le_bytes());
        }
        out.extend_from_slice(&(values.len() as u32).to_le_bytes());
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(values.len() as u64 * 32).to_le_bytes());
        for v in values {
            for l in v {
                out.extend_from_slice(&l.to_le_bytes());
            }
        }
        out
    }

    #[test]
    fn round_trip_and_errors() {
        let vals = vec![[1, 0, 0, 0], [5, 0, 0, 0], [0, 0, 0, 7]];
        let img = image(&vals);
        assert_eq!(parse(&img, "w").unwrap(), vals);

        let mut bad = img.clone();
        bad.pop();
        assert!(parse(&bad, "w").is_err());
        let mut bad = img.clone();
        bad[img.len() - 3 * 32] = 2; // value 0 is not 1
        assert!(parse(&bad, "w").unwrap_err().contains("ONE"));
        let mut bad = img.clone();
        let n = bad.len();
        bad[n - 8..].copy_from_slice(&u64::MAX.to_le_bytes()); // last value >= r
        assert!(parse(&bad, "w").unwrap_err().contains("below the field prime"));
        let mut bad = img.clone();
        bad[28] ^= 1; // the prime
        assert!(parse(&bad, "w").unwrap_err().contains("prime"));
        assert!(parse(b"wtn", "w").is_err());
    }
}
