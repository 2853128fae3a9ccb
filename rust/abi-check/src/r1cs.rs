//! snarkpipe's recorded circuit, `.snkr1cs` version 1 (snarkpipe's src/circuit/r1cs_file.hpp):
//! a 128-byte header, then A, B, C as CSR matrices (row_ptr u64, col u32, val Fr Montgomery)
//! and the three density bitmaps, each section at a 64-byte boundary.
//!
//! Every size is checked against the header and the file's length before anything is read,
//! and the contents against the format's invariants; errors name the field and byte offset.

use crate::field::{Limbs, FR};

pub type Fr = Limbs<4>;

const MAGIC: &[u8; 8] = b"SNKR1CS\0";
const VERSION: u32 = 1;
const HEADER_SIZE: u64 = 128;
const ALIGN: u64 = 64;
const CHECKSUM_OFFSET: usize = 72;

/// One CSR matrix: row k's entries are [row_ptr[k], row_ptr[k + 1]).
#[derive(Debug)]
pub struct Csr {
    pub row_ptr: Vec<u64>,
    pub col: Vec<u32>,
    pub val: Vec<Fr>,
}

impl Csr {
    pub fn row(&self, k: usize) -> impl Iterator<Item = (usize, &Fr)> {
        let (lo, hi) = (self.row_ptr[k] as usize, self.row_ptr[k + 1] as usize);
        self.col[lo..hi]
            .iter()
            .map(|&c| c as usize)
            .zip(self.val[lo..hi].iter())
    }
}

#[derive(Debug)]
pub struct R1cs {
    /// Including ONE.
    pub num_inputs: usize,
    pub num_aux: usize,
    /// Including the one constraint per input.
    pub num_constraints: usize,
    pub a: Csr,
    pub b: Csr,
    pub c: Csr,
    pub a_aux_density: Vec<u64>,
    pub b_input_density: Vec<u64>,
    pub b_aux_density: Vec<u64>,
}

impl R1cs {
    pub fn num_columns(&self) -> usize {
        self.num_inputs + self.num_aux
    }
}

const SECTION_NAMES: [&str; 12] = [
    "A.row_ptr",
    "A.col",
    "A.val",
    "B.row_ptr",
    "B.col",
    "B.val",
    "C.row_ptr",
    "C.col",
    "C.val",
    "a_aux_density",
    "b_input_density",
    "b_aux_density",
];

#[derive(Clone, Copy, Debug)]
struct Section {
    offset: u64,
    size: u64,
}

/// Where the 12 sections lie and the file's size, or None when a size overflows 64 bits.
fn layout(num_inputs: u64, num_aux: u64, num_constraints: u64, nnz: [u64; 3]) -> Option<([Section; 12], u64)> {
    let rows = num_constraints.checked_add(1)?;
    let aux_words = num_aux.div_ceil(64);
    let input_words = num_inputs.div_ceil(64);
    let bytes: [(u64, u64); 12] = [
        (rows, 8),
        (nnz[0], 4),
        (nnz[0], 32),
        (rows, 8),
        (nnz[1], 4),
        (nnz[1], 32),
        (rows, 8),
        (nnz[2], 4),
        (nnz[2], 32),
        (aux_words, 8),
        (input_words, 8),
        (aux_words, 8),
    ];
    let align = |x: u64| x.checked_add(ALIGN - 1).map(|v| v & !(ALIGN - 1));
    let mut at = HEADER_SIZE;
    let mut out = [Section { offset: 0, size: 0 }; 12];
    for (i, &(count, entry)) in bytes.iter().enumerate() {
        let offset = align(at)?;
        let size = count.checked_mul(entry)?;
        out[i] = Section { offset, size };
        at = offset.checked_add(size)?;
    }
    Some((out, align(at)?))
}

// snkhash64 (r1cs_file.hpp): 2^20-byte blocks hashed in four lanes, folded in order.
const P1: u64 = 0x9e3779b185ebca87;
const P2: u64 = 0xc2b2ae3d27d4eb4f;
const BLOCK: usize = 1 << 20;

fn fmix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ceb9fe1a85ec53);
    x ^= x >> 33;
    x
}

/// The checksum of a file image whose length is a multiple of 64 and at least the header;
/// the checksum field is read as zero.
pub fn checksum(file: &[u8]) -> u64 {
    let word = |i: usize| -> u64 {
        if (CHECKSUM_OFFSET..CHECKSUM_OFFSET + 8).contains(&i) {
            0
        } else {
            u64::from_le_bytes(file[i..i + 8].try_into().unwrap())
        }
    };
    let mut h = 0u64;
    for (bi, start) in (0..file.len()).step_by(BLOCK).enumerate() {
        let len = BLOCK.min(file.len() - start);
        let mut v = [0u64; 4];
        for (j, lane) in v.iter_mut().enumerate() {
            *lane = fmix(4 * bi as u64 + j as u64 + 1);
        }
        for stripe in (start..start + len).step_by(32) {
            for (j, lane) in v.iter_mut().enumerate() {
                *lane = lane
                    .wrapping_add(word(stripe + 8 * j).wrapping_mul(P2))
                    .rotate_left(31)
                    .wrapping_mul(P1);
            }
        }
        let bh = fmix(
            v[0].rotate_left(1)
                .wrapping_add(v[1].rotate_left(7))
                .wrapping_add(v[2].rotate_left(12))
                .wrapping_add(v[3].rotate_left(18))
                .wrapping_add(len as u64),
        );
        h = (h ^ bh).rotate_left(27).wrapping_mul(P1).wrapping_add(P2);
    }
    fmix(h ^ file.len() as u64)
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().unwrap())
}

/// Bit i of a bitmap (LSB-first words).
pub fn bit(words: &[u64], i: usize) -> bool {
    (words[i / 64] >> (i % 64)) & 1 == 1
}

/// Reads and validates a .snkr1cs file.
pub fn read(path: &std::path::Path) -> Result<R1cs, String> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| format!("r1cs file {name}: cannot read: {e}"))?;
    parse(&bytes, &name)
}

/// Validates a .snkr1cs image (`name` is for messages).
pub fn parse(b: &[u8], name: &str) -> Result<R1cs, String> {
    let fail =
        |field: &str, offset: u64, problem: String| format!("r1cs file {name}: {field} at offset {offset}: {problem}");

    if (b.len() as u64) < HEADER_SIZE {
        return Err(fail(
            "header",
            0,
            format!(
                "the file has {} bytes, less than the {HEADER_SIZE}-byte header",
                b.len()
            ),
        ));
    }
    if &b[0..8] != MAGIC {
        return Err(fail(
            "magic",
            0,
            "not a .snkr1cs file (the magic is not \"SNKR1CS\\0\")".into(),
        ));
    }
    let version = u32_at(b, 8);
    if version != VERSION {
        return Err(fail(
            "version",
            8,
            format!("version {version} is not supported (only {VERSION})"),
        ));
    }
    let header_size = u32_at(b, 12);
    if header_size as u64 != HEADER_SIZE {
        return Err(fail(
            "header_size",
            12,
            format!("header size {header_size}, expected {HEADER_SIZE}"),
        ));
    }
    if let Some(i) = b[80..128].iter().position(|&x| x != 0) {
        return Err(fail(
            "reserved",
            80 + i as u64,
            "reserved header bytes are not zero".into(),
        ));
    }
    let num_inputs = u64_at(b, 16);
    let num_aux = u64_at(b, 24);
    let num_constraints = u64_at(b, 32);
    let nnz = [u64_at(b, 40), u64_at(b, 48), u64_at(b, 56)];
    let file_size = u64_at(b, 64);
    let stored_checksum = u64_at(b, 72);
    if num_inputs == 0 {
        return Err(fail("num_inputs", 16, "num_inputs is 0 (it counts ONE)".into()));
    }
    let columns = num_inputs.checked_add(num_aux);
    if columns.is_none_or(|c| c > 1u64 << 32) {
        return Err(fail(
            "num_aux",
            24,
            format!("num_inputs {num_inputs} + num_aux {num_aux} exceed 2^32 columns"),
        ));
    }
    let Some((sections, expect_size)) = layout(num_inputs, num_aux, num_constraints, nnz) else {
        return Err(fail("counts", 16, "the section sizes overflow 64 bits".into()));
    };
    if file_size != expect_size {
        return Err(fail(
            "file_size",
            64,
            format!("file_size is {file_size} but the counts need {expect_size}"),
        ));
    }
    if b.len() as u64 != file_size {
        return Err(fail(
            "file_size",
            64,
            format!(
                "file_size is {file_size} but the file has {} bytes (truncated?)",
                b.len()
            ),
        ));
    }
    let sum = checksum(b);
    if sum != stored_checksum {
        return Err(fail(
            "checksum",
            CHECKSUM_OFFSET as u64,
            format!("checksum {stored_checksum:#018x} but the contents hash to {sum:#018x} (corrupt file)"),
        ));
    }
    // Zero padding between and after the sections.
    let mut at = HEADER_SIZE as usize;
    for (i, s) in sections.iter().enumerate() {
        if let Some(j) = b[at..s.offset as usize].iter().position(|&x| x != 0) {
            return Err(fail(
                SECTION_NAMES[i],
                (at + j) as u64,
                "the padding before the section is not zero".into(),
            ));
        }
        at = (s.offset + s.size) as usize;
    }
    if let Some(j) = b[at..].iter().position(|&x| x != 0) {
        return Err(fail(
            "file",
            (at + j) as u64,
            "the padding at the end is not zero".into(),
        ));
    }

    let (num_inputs, num_aux, num_constraints) = (num_inputs as usize, num_aux as usize, num_constraints as usize);
    let columns = num_inputs + num_aux;
    let slice = |i: usize| &b[sections[i].offset as usize..(sections[i].offset + sections[i].size) as usize];
    let u64s = |i: usize| {
        slice(i)
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect::<Vec<_>>()
    };

    let mut mats = Vec::with_capacity(3);
    for (m, &m_nnz) in nnz.iter().enumerate() {
        let (rp, cl, vl) = (3 * m, 3 * m + 1, 3 * m + 2);
        let row_ptr = u64s(rp);
        let col: Vec<u32> = slice(cl)
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let val: Vec<Fr> = slice(vl)
            .chunks_exact(32)
            .map(|c| {
                let mut x = [0u64; 4];
                for (k, l) in x.iter_mut().enumerate() {
                    *l = u64::from_le_bytes(c[8 * k..8 * k + 8].try_into().unwrap());
                }
                x
            })
            .collect();
        let at = |i: usize, entry: u64| sections[i].offset + entry * [8, 4, 32][i % 3];
        if row_ptr[0] != 0 {
            return Err(fail(
                SECTION_NAMES[rp],
                at(rp, 0),
                format!("row_ptr[0] is {}, not 0", row_ptr[0]),
            ));
        }
        for k in 0..num_constraints {
            if row_ptr[k + 1] < row_ptr[k] {
                return Err(fail(
                    SECTION_NAMES[rp],
                    at(rp, k as u64 + 1),
                    format!("row_ptr[{}] decreases", k + 1),
                ));
            }
        }
        if row_ptr[num_constraints] != m_nnz {
            return Err(fail(
                SECTION_NAMES[rp],
                at(rp, num_constraints as u64),
                format!("the last row_ptr is {} but nnz is {}", row_ptr[num_constraints], m_nnz),
            ));
        }
        for k in 0..num_constraints {
            for e in row_ptr[k] as usize..row_ptr[k + 1] as usize {
                let c = col[e] as usize;
                if c >= columns {
                    return Err(fail(
                        SECTION_NAMES[cl],
                        at(cl, e as u64),
                        format!("row {k}: column {c} >= {columns} columns"),
                    ));
                }
                if e > row_ptr[k] as usize && col[e - 1] as usize >= c {
                    return Err(fail(
                        SECTION_NAMES[cl],
                        at(cl, e as u64),
                        format!("row {k}: columns not strictly increasing"),
                    ));
                }
            }
        }
        for (e, v) in val.iter().enumerate() {
            if !FR.is_reduced(v) {
                return Err(fail(
                    SECTION_NAMES[vl],
                    at(vl, e as u64),
                    "a coefficient is not reduced below r".into(),
                ));
            }
            if v.iter().all(|&l| l == 0) {
                return Err(fail(
                    SECTION_NAMES[vl],
                    at(vl, e as u64),
                    "a coefficient is zero".into(),
                ));
            }
        }
        mats.push(Csr { row_ptr, col, val });
    }
    let c = mats.pop().unwrap();
    let bm = mats.pop().unwrap();
    let a = mats.pop().unwrap();
    let r1cs = R1cs {
        num_inputs,
        num_aux,
        num_constraints,
        a,
        b: bm,
        c,
        a_aux_density: u64s(9),
        b_input_density: u64s(10),
        b_aux_density: u64s(11),
    };
    // The stored densities must be what the matrices imply (bits past the end zero).
    let d = crate::synth::Densities::of(&r1cs);
    for (i, (stored, derived)) in [
        (&r1cs.a_aux_density, &d.a_aux),
        (&r1cs.b_input_density, &d.b_inp),
        (&r1cs.b_aux_density, &d.b_aux),
    ]
    .into_iter()
    .enumerate()
    {
        if let Some(w) = (0..stored.len()).find(|&w| stored[w] != derived[w]) {
            return Err(fail(
                SECTION_NAMES[9 + i],
                sections[9 + i].offset + 8 * w as u64,
                format!(
                    "word {w} is {:#018x} but the matrices' columns give {:#018x}",
                    stored[w], derived[w]
                ),
            ));
        }
    }
    Ok(r1cs)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A .snkr1cs image of the given matrices (rows of (column, Montgomery value)), laid out
    /// as r1cs_file.hpp says; for the tests here.
    pub fn image(num_inputs: usize, num_aux: usize, mats: [&[Vec<(u32, Fr)>]; 3]) -> Vec<u8> {
        let rows = mats[0].len();
        let nnz = mats.map(|m| m.iter().map(|r| r.len() as u64).sum::<u64>());
        let (sections, size) = layout(num_inputs as u64, num_aux as u64, rows as u64, nnz).unwrap();
        let mut f = vec![0u8; size as usize];
        f[0..8].copy_from_slice(MAGIC);
        f[8..12].copy_from_slice(&VERSION.to_le_bytes());
        f[12..16].copy_from_slice(&(HEADER_SIZE as u32).to_le_bytes());
        for (i, v) in [
            num_inputs as u64,
            num_aux as u64,
            rows as u64,
            nnz[0],
            nnz[1],
            nnz[2],
            size,
        ]
        .iter()
        .enumerate()
        {
            f[16 + 8 * i..24 + 8 * i].copy_from_slice(&v.to_le_bytes());
        }
        let mut densities = [
            vec![0u64; num_aux.div_ceil(64)],
            vec![0u64; num_inputs.div_ceil(64)],
            vec![0u64; num_aux.div_ceil(64)],
        ];
        for (m, mat) in mats.iter().enumerate() {
            let mut ptr = 0u64;
            let mut put = |sec: usize, idx: usize, bytes: &[u8]| {
                let o = sections[sec].offset as usize + idx * bytes.len();
                f[o..o + bytes.len()].copy_from_slice(bytes);
            };
            put(3 * m, 0, &0u64.to_le_bytes());
            for (k, row) in mat.iter().enumerate() {
                for &(c, v) in row {
                    put(3 * m + 1, ptr as usize, &c.to_le_bytes());
                    let mut vb = [0u8; 32];
                    for l in 0..4 {
                        vb[8 * l..8 * l + 8].copy_from_slice(&v[l].to_le_bytes());
                    }
                    put(3 * m + 2, ptr as usize, &vb);
                    ptr += 1;
                    let c = c as usize;
                    if m == 0 && c >= num_inputs {
                        densities[0][(c - num_inputs) / 64] |= 1 << ((c - num_inputs) % 64);
                    }
                    if m == 1 && c < num_inputs {
                        densities[1][c / 64] |= 1 << (c % 64);
                    }
                    if m == 1 && c >= num_inputs {
                        densities[2][(c - num_inputs) / 64] |= 1 << ((c - num_inputs) % 64);
                    }
                }
                put(3 * m, k + 1, &ptr.to_le_bytes());
            }
        }
        for (i, d) in densities.iter().enumerate() {
            for (w, word) in d.iter().enumerate() {
                let o = sections[9 + i].offset as usize + 8 * w;
                f[o..o + 8].copy_from_slice(&word.to_le_bytes());
            }
        }
        let sum = checksum(&f);
        f[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 8].copy_from_slice(&sum.to_le_bytes());
        f
    }

    #[test]
    fn layout_matches_the_format() {
        // 1 input, 2 aux, 3 constraints, nnz 3/2/1.
        let (s, size) = layout(1, 2, 3, [3, 2, 1]).unwrap();
        assert_eq!(s[0].offset, 128); // A.row_ptr: 4 × 8 = 32 bytes
        assert_eq!(s[1].offset, 192); // A.col: 12 bytes
        assert_eq!(s[2].offset, 256); // A.val: 96 bytes
        assert_eq!(s[3].offset, 384);
        assert_eq!(s[9].size, 8);
        assert_eq!(size % 64, 0);
        assert!(layout(1, 0, u64::MAX, [0, 0, 0]).is_none());
    }

    #[test]
    fn checksum_of_a_multiblock_image_changes_with_any_word() {
        let mut img = vec![0u8; (1 << 20) + 256];
        for (i, x) in img.iter_mut().enumerate() {
            *x = (i * 31 % 251) as u8;
        }
        let h = checksum(&img);
        // The checksum field does not count.
        img[72] ^= 0xff;
        assert_eq!(checksum(&img), h);
        img[(1 << 20) + 8] ^= 1;
        assert_ne!(checksum(&img), h);
    }

    #[test]
    fn parse_round_trip_and_errors() {
        let one = FR.one;
        // x · x = y with x = aux 0 (column 2), y = aux 1 (column 3); 2 inputs; then the input rows.
        let a = vec![vec![(2u32, one)], vec![(0, one)], vec![(1, one)]];
        let b = vec![vec![(2u32, one)], vec![], vec![]];
        let c = vec![vec![(3u32, one)], vec![], vec![]];
        let img = image(2, 2, [&a, &b, &c]);
        let r = parse(&img, "t").unwrap();
        assert_eq!((r.num_inputs, r.num_aux, r.num_constraints), (2, 2, 3));
        assert_eq!(r.a_aux_density, vec![1]);
        assert_eq!(r.b_input_density, vec![0]);
        assert_eq!(r.b_aux_density, vec![1]);
        assert_eq!(r.a.row(1).collect::<Vec<_>>(), vec![(0, &one)]);

        let mut bad = img.clone();
        bad.truncate(bad.len() - 64);
        assert!(parse(&bad, "t").unwrap_err().contains("file_size"));
        let mut bad = img.clone();
        bad[200] ^= 1;
        assert!(parse(&bad, "t").unwrap_err().contains("checksum"));
        let mut bad = img.clone();
        bad[0] = b'X';
        assert!(parse(&bad, "t").unwrap_err().contains("magic"));
        assert!(parse(&img[..10], "t").unwrap_err().contains("header"));
    }
}
