//! BLS12-381 points as blst lays them out (affine, Fp in Montgomery form; (0, 0) is the point
//! at infinity), their on-curve checks, and the Zcash compressed encoding that bellperson's
//! Proof::write uses.

use crate::field::{geq, limbs_to_be, Limbs, FP};

pub type Fp = Limbs<6>;

/// The compressed-encoding flags, in the first byte.
const COMPRESSED: u8 = 0x80;
const INFINITY: u8 = 0x40;
const LARGEST: u8 = 0x20;

fn is_zero(a: &Fp) -> bool {
    a.iter().all(|&l| l == 0)
}

fn check_reduced(what: &str, a: &Fp) -> Result<(), String> {
    if FP.is_reduced(a) {
        Ok(())
    } else {
        Err(format!(
            "{what} is not a reduced Fp value (limbs {a:016x?}): the proof was not written, or is corrupt"
        ))
    }
}

// Canonical y > (p - 1) / 2.
fn is_largest(canonical: &Fp) -> bool {
    let half = FP.half();
    geq(canonical, &half) && canonical != &half
}

fn four() -> Fp {
    let mut c = [0u64; 6];
    c[0] = 4;
    FP.to_mont(&c)
}

/// y^2 = x^3 + 4, with x, y in Montgomery form.
pub fn g1_on_curve(x: &Fp, y: &Fp) -> bool {
    let lhs = FP.square(y);
    let rhs = FP.add(&FP.mul(&FP.square(x), x), &four());
    lhs == rhs
}

// Fp2 = Fp[u] / (u^2 + 1), as (c0, c1).
type Fp2 = (Fp, Fp);

fn fp2_mul(a: &Fp2, b: &Fp2) -> Fp2 {
    let c0 = FP.sub(&FP.mul(&a.0, &b.0), &FP.mul(&a.1, &b.1));
    let c1 = FP.add(&FP.mul(&a.0, &b.1), &FP.mul(&a.1, &b.0));
    (c0, c1)
}

/// y^2 = x^3 + 4(1 + u), with the coordinates' components in Montgomery form.
pub fn g2_on_curve(x: &Fp2, y: &Fp2) -> bool {
    let lhs = fp2_mul(y, y);
    let x3 = fp2_mul(&fp2_mul(x, x), x);
    let rhs = (FP.add(&x3.0, &four()), FP.add(&x3.1, &four()));
    lhs == rhs
}

/// A G1 point (Montgomery x, y; (0, 0) = infinity) in its 48-byte compressed encoding.
/// Errors when a coordinate is unreduced or the point is off the curve.
pub fn compress_g1(what: &str, x: &Fp, y: &Fp) -> Result<[u8; 48], String> {
    check_reduced(&format!("{what}.x"), x)?;
    check_reduced(&format!("{what}.y"), y)?;
    let mut out = [0u8; 48];
    if is_zero(x) && is_zero(y) {
        out[0] = COMPRESSED | INFINITY;
        return Ok(out);
    }
    if !g1_on_curve(x, y) {
        return Err(format!("{what} is not on the curve y^2 = x^3 + 4"));
    }
    limbs_to_be(&FP.from_mont(x), &mut out);
    out[0] |= COMPRESSED;
    if is_largest(&FP.from_mont(y)) {
        out[0] |= LARGEST;
    }
    Ok(out)
}

/// A G2 point (Montgomery x.c0, x.c1, y.c0, y.c1; all zero = infinity) in its 96-byte
/// compressed encoding: x.c1 ‖ x.c0, the sign taken from y.c1, or from y.c0 when y.c1 = 0.
pub fn compress_g2(what: &str, x: &Fp2, y: &Fp2) -> Result<[u8; 96], String> {
    check_reduced(&format!("{what}.x.c0"), &x.0)?;
    check_reduced(&format!("{what}.x.c1"), &x.1)?;
    check_reduced(&format!("{what}.y.c0"), &y.0)?;
    check_reduced(&format!("{what}.y.c1"), &y.1)?;
    let mut out = [0u8; 96];
    if is_zero(&x.0) && is_zero(&x.1) && is_zero(&y.0) && is_zero(&y.1) {
        out[0] = COMPRESSED | INFINITY;
        return Ok(out);
    }
    if !g2_on_curve(x, y) {
        return Err(format!("{what} is not on the curve y^2 = x^3 + 4(1 + u)"));
    }
    limbs_to_be(&FP.from_mont(&x.1), &mut out[..48]);
    limbs_to_be(&FP.from_mont(&x.0), &mut out[48..]);
    out[0] |= COMPRESSED;
    let y1 = FP.from_mont(&y.1);
    let largest = if is_zero(&y1) {
        is_largest(&FP.from_mont(&y.0))
    } else {
        is_largest(&y1)
    };
    if largest {
        out[0] |= LARGEST;
    }
    Ok(out)
}

/// bellperson's Proof<Bls12> as blst lays it out (384 bytes): A (G1), B (G2), C (G1).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Proof {
    pub a: [u64; 12],
    pub b: [u64; 24],
    pub c: [u64; 12],
}

/// What a proof buffer is filled with before the library writes it: no limb of it is a
/// reduced Fp value, so a proof left unwritten cannot pass for one.
pub const UNWRITTEN: u64 = 0xa5a5_a5a5_a5a5_a5a5;

impl Proof {
    pub fn unwritten() -> Self {
        Proof {
            a: [UNWRITTEN; 12],
            b: [UNWRITTEN; 24],
            c: [UNWRITTEN; 12],
        }
    }

    pub fn is_unwritten(&self) -> bool {
        self.a
            .iter()
            .chain(self.b.iter())
            .chain(self.c.iter())
            .all(|&l| l == UNWRITTEN)
    }

    /// The 192-byte encoding bellperson writes: A ‖ B ‖ C, each compressed.
    pub fn compress(&self) -> Result<[u8; 192], String> {
        let fp = |s: &[u64]| -> Fp { s.try_into().unwrap() };
        let a = compress_g1("A", &fp(&self.a[0..6]), &fp(&self.a[6..12]))?;
        let b = compress_g2(
            "B",
            &(fp(&self.b[0..6]), fp(&self.b[6..12])),
            &(fp(&self.b[12..18]), fp(&self.b[18..24])),
        )?;
        let c = compress_g1("C", &fp(&self.c[0..6]), &fp(&self.c[6..12]))?;
        let mut out = [0u8; 192];
        out[..48].copy_from_slice(&a);
        out[48..144].copy_from_slice(&b);
        out[144..].copy_from_slice(&c);
        Ok(out)
    }
}

const _: () = assert!(std::mem::size_of::<Proof>() == 384);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::hex;

    fn g1_generator() -> (Fp, Fp) {
        let x = hex("17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
        let y = hex("08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");
        (FP.to_mont(&x), FP.to_mont(&y))
    }

    fn g2_generator() -> (Fp2, Fp2) {
        let m = |s: &str| FP.to_mont(&hex(s));
        (
            (
                m("024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"),
                m("13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"),
            ),
            (
                m("0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"),
                m("0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be"),
            ),
        )
    }

    fn neg(a: &Fp) -> Fp {
        FP.sub(&[0u64; 6], a)
    }

    #[test]
    fn g1_generator_compresses() {
        let (x, y) = g1_generator();
        assert!(g1_on_curve(&x, &y));
        let enc = compress_g1("G", &x, &y).unwrap();
        let mut want = [0u8; 48];
        limbs_to_be(&FP.from_mont(&x), &mut want);
        want[0] |= 0x80;
        assert_eq!(enc, want);
        assert_eq!(&enc[..4], &[0x97, 0xf1, 0xd3, 0xa7]);
        // -G: the larger y.
        let enc_neg = compress_g1("G", &x, &neg(&y)).unwrap();
        assert_eq!(enc_neg[0], 0x97 | 0x20);
        assert_eq!(&enc_neg[1..], &enc[1..]);
    }

    #[test]
    fn g2_generator_compresses() {
        let (x, y) = g2_generator();
        assert!(g2_on_curve(&x, &y));
        let enc = compress_g2("G", &x, &y).unwrap();
        assert_eq!(&enc[..4], &[0x93, 0xe0, 0x2b, 0x60]);
        assert_eq!(&enc[48..52], &[0x02, 0x4a, 0xa2, 0xb2]);
        let enc_neg = compress_g2("G", &x, &(neg(&y.0), neg(&y.1))).unwrap();
        assert_eq!(enc_neg[0], 0x93 | 0x20);
    }

    #[test]
    fn infinity_and_garbage() {
        let z = [0u64; 6];
        let enc = compress_g1("A", &z, &z).unwrap();
        assert_eq!(enc[0], 0xc0);
        assert!(enc[1..].iter().all(|&b| b == 0));
        let enc2 = compress_g2("B", &(z, z), &(z, z)).unwrap();
        assert_eq!(enc2[0], 0xc0);
        assert!(enc2[1..].iter().all(|&b| b == 0));
        assert!(Proof::unwritten().compress().is_err());
        let (x, _) = g1_generator();
        assert!(compress_g1("A", &x, &x).is_err()); // off the curve
    }

    #[test]
    fn proof_layout() {
        let (gx, gy) = g1_generator();
        let (hx, hy) = g2_generator();
        let mut p = Proof::unwritten();
        p.a[..6].copy_from_slice(&gx);
        p.a[6..].copy_from_slice(&gy);
        p.b[..6].copy_from_slice(&hx.0);
        p.b[6..12].copy_from_slice(&hx.1);
        p.b[12..18].copy_from_slice(&hy.0);
        p.b[18..].copy_from_slice(&hy.1);
        p.c = [0; 12];
        let enc = p.compress().unwrap();
        assert_eq!(enc[0], 0x97);
        assert_eq!(enc[48], 0x93);
        assert_eq!(enc[144], 0xc0);
    }
}
