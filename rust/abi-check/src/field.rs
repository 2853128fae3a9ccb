//! Montgomery arithmetic modulo an odd prime of N 64-bit limbs (little-endian, least
//! significant limb first), written once for BLS12-381's Fr (N = 4) and Fp (N = 6).
//!
//! Values are kept reduced (< m). Montgomery form of x is x·R mod m with R = 2^(64N), as blst
//! and sppark store field elements.

/// N limbs, least significant first.
pub type Limbs<const N: usize> = [u64; N];

/// A prime field's constants: the modulus, -m^-1 mod 2^64, R mod m and R^2 mod m.
pub struct Field<const N: usize> {
    pub modulus: Limbs<N>,
    pub inv: u64,
    /// The Montgomery form of 1: R mod m.
    pub one: Limbs<N>,
    /// R^2 mod m, which takes a canonical value to Montgomery form.
    pub r2: Limbs<N>,
}

/// BLS12-381's scalar field r.
pub const FR: Field<4> = Field::new(
    hex("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001"),
    0xfffffffeffffffff,
);

/// BLS12-381's base field p.
pub const FP: Field<6> = Field::new(
    hex("1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab"),
    0x89f3fffcfffcfffd,
);

/// Big-endian hex (no 0x, at most 16N digits) to limbs; for constants (panics at compile time
/// on a bad digit).
pub const fn hex<const N: usize>(s: &str) -> Limbs<N> {
    let b = s.as_bytes();
    assert!(b.len() <= 16 * N, "hex constant too long");
    let mut out = [0u64; N];
    let mut i = 0;
    while i < b.len() {
        let c = b[b.len() - 1 - i];
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => panic!("bad hex digit"),
        } as u64;
        out[i / 16] |= d << (4 * (i % 16));
        i += 1;
    }
    out
}

/// a >= b.
pub const fn geq<const N: usize>(a: &Limbs<N>, b: &Limbs<N>) -> bool {
    let mut i = N;
    while i > 0 {
        i -= 1;
        if a[i] != b[i] {
            return a[i] > b[i];
        }
    }
    true
}

/// a + b and the carry out.
pub const fn add_raw<const N: usize>(a: &Limbs<N>, b: &Limbs<N>) -> (Limbs<N>, bool) {
    let mut out = [0u64; N];
    let mut carry = false;
    let mut i = 0;
    while i < N {
        let (s1, c1) = a[i].overflowing_add(b[i]);
        let (s2, c2) = s1.overflowing_add(carry as u64);
        out[i] = s2;
        carry = c1 | c2;
        i += 1;
    }
    (out, carry)
}

/// a - b and the borrow out.
pub const fn sub_raw<const N: usize>(a: &Limbs<N>, b: &Limbs<N>) -> (Limbs<N>, bool) {
    let mut out = [0u64; N];
    let mut borrow = false;
    let mut i = 0;
    while i < N {
        let (d1, b1) = a[i].overflowing_sub(b[i]);
        let (d2, b2) = d1.overflowing_sub(borrow as u64);
        out[i] = d2;
        borrow = b1 | b2;
        i += 1;
    }
    (out, borrow)
}

/// a >> 1.
pub const fn shr1<const N: usize>(a: &Limbs<N>) -> Limbs<N> {
    let mut out = [0u64; N];
    let mut i = 0;
    while i < N {
        out[i] = a[i] >> 1;
        if i + 1 < N {
            out[i] |= a[i + 1] << 63;
        }
        i += 1;
    }
    out
}

/// (a + b) mod m for a, b < m.
pub const fn add_mod<const N: usize>(a: &Limbs<N>, b: &Limbs<N>, m: &Limbs<N>) -> Limbs<N> {
    let (s, carry) = add_raw(a, b);
    if carry || geq(&s, m) {
        sub_raw(&s, m).0
    } else {
        s
    }
}

/// (a - b) mod m for a, b < m.
pub const fn sub_mod<const N: usize>(a: &Limbs<N>, b: &Limbs<N>, m: &Limbs<N>) -> Limbs<N> {
    let (d, borrow) = sub_raw(a, b);
    if borrow {
        add_raw(&d, m).0
    } else {
        d
    }
}

impl<const N: usize> Field<N> {
    /// The constants of the field with this odd modulus (> 1) and -m^-1 mod 2^64. R mod m and
    /// R^2 mod m are found by doubling 1 modulo m, so they need no multiplication.
    pub const fn new(modulus: Limbs<N>, inv: u64) -> Self {
        let mut x = [0u64; N];
        x[0] = 1;
        let mut i = 0;
        let mut one = x;
        while i < 128 * N {
            x = add_mod(&x, &x, &modulus);
            i += 1;
            if i == 64 * N {
                one = x;
            }
        }
        Field {
            modulus,
            inv,
            one,
            r2: x,
        }
    }

    pub fn zero(&self) -> Limbs<N> {
        [0u64; N]
    }

    /// a < m: a reduced value, as every Montgomery or canonical value here is.
    pub fn is_reduced(&self, a: &Limbs<N>) -> bool {
        !geq(a, &self.modulus)
    }

    /// a·b·R^-1 mod m for a, b < m (CIOS: multiply by a limb of b, then reduce by one limb).
    pub fn mul(&self, a: &Limbs<N>, b: &Limbs<N>) -> Limbs<N> {
        let m = &self.modulus;
        let mut t = [0u64; N];
        let mut t_hi = 0u64; // limb N of the running sum (limb N + 1 is at most 1, kept in carry)
        for &bi in b.iter() {
            // t += a·bi
            let mut carry = 0u64;
            for j in 0..N {
                let s = t[j] as u128 + (a[j] as u128) * (bi as u128) + carry as u128;
                t[j] = s as u64;
                carry = (s >> 64) as u64;
            }
            let s = t_hi as u128 + carry as u128;
            t_hi = s as u64;
            let t_top = (s >> 64) as u64;
            // t = (t + q·m) / 2^64, q chosen so that the low limb vanishes
            let q = t[0].wrapping_mul(self.inv);
            let s = t[0] as u128 + (q as u128) * (m[0] as u128);
            let mut carry = (s >> 64) as u64;
            for j in 1..N {
                let s = t[j] as u128 + (q as u128) * (m[j] as u128) + carry as u128;
                t[j - 1] = s as u64;
                carry = (s >> 64) as u64;
            }
            let s = t_hi as u128 + carry as u128;
            t[N - 1] = s as u64;
            t_hi = t_top + (s >> 64) as u64;
        }
        if t_hi != 0 || geq(&t, m) {
            sub_raw(&t, m).0
        } else {
            t
        }
    }

    pub fn square(&self, a: &Limbs<N>) -> Limbs<N> {
        self.mul(a, a)
    }

    pub fn add(&self, a: &Limbs<N>, b: &Limbs<N>) -> Limbs<N> {
        add_mod(a, b, &self.modulus)
    }

    pub fn sub(&self, a: &Limbs<N>, b: &Limbs<N>) -> Limbs<N> {
        sub_mod(a, b, &self.modulus)
    }

    /// Canonical (reduced) value to Montgomery form.
    pub fn to_mont(&self, a: &Limbs<N>) -> Limbs<N> {
        self.mul(a, &self.r2)
    }

    /// Montgomery form to the canonical value: a Montgomery multiplication by 1.
    pub fn from_mont(&self, a: &Limbs<N>) -> Limbs<N> {
        let mut one = [0u64; N];
        one[0] = 1;
        self.mul(a, &one)
    }

    /// (m - 1) / 2: canonical values above it are the "lexicographically largest" of a pair ±y.
    pub fn half(&self) -> Limbs<N> {
        shr1(&self.modulus)
    }
}

/// Little-endian bytes (8N of them) to limbs.
pub fn limbs_from_le<const N: usize>(bytes: &[u8]) -> Limbs<N> {
    assert_eq!(bytes.len(), 8 * N);
    let mut out = [0u64; N];
    for (i, chunk) in bytes.chunks_exact(8).enumerate() {
        out[i] = u64::from_le_bytes(chunk.try_into().unwrap());
    }
    out
}

/// Limbs to 8N big-endian bytes.
pub fn limbs_to_be<const N: usize>(a: &Limbs<N>, out: &mut [u8]) {
    assert_eq!(out.len(), 8 * N);
    for i in 0..N {
        out[8 * i..8 * i + 8].copy_from_slice(&a[N - 1 - i].to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // xorshift64*: deterministic test values.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545f4914f6cdd1d)
        }
        fn below<const N: usize>(&mut self, f: &Field<N>) -> Limbs<N> {
            let top_bits = 64 - f.modulus[N - 1].leading_zeros();
            loop {
                let mut x = [0u64; N];
                for l in x.iter_mut() {
                    *l = self.next();
                }
                x[N - 1] &= (1u64 << top_bits) - 1;
                if f.is_reduced(&x) {
                    return x;
                }
            }
        }
    }

    // a·b mod m by double-and-add over b's bits, using only add_mod: a reference that shares
    // nothing with the Montgomery multiplication.
    fn slow_mul<const N: usize>(f: &Field<N>, a: &Limbs<N>, b: &Limbs<N>) -> Limbs<N> {
        let mut acc = [0u64; N];
        for i in (0..64 * N).rev() {
            acc = f.add(&acc, &acc);
            if (b[i / 64] >> (i % 64)) & 1 == 1 {
                acc = f.add(&acc, a);
            }
        }
        acc
    }

    fn check_field<const N: usize>(f: &Field<N>, seed: u64) {
        // inv really is -m^-1 mod 2^64.
        assert_eq!(f.modulus[0].wrapping_mul(f.inv), u64::MAX);
        let mut rng = Rng(seed);
        for _ in 0..300 {
            let a = rng.below(f);
            let b = rng.below(f);
            let p = f.mul(&a, &b);
            assert!(f.is_reduced(&p));
            // mul(a, b)·R = a·b (mod m)
            assert_eq!(slow_mul(f, &p, &f.one), slow_mul(f, &a, &b));
            assert_eq!(f.to_mont(&f.from_mont(&a)), a);
            assert_eq!(f.from_mont(&f.to_mont(&a)), a);
            assert_eq!(f.sub(&f.add(&a, &b), &b), a);
        }
        // Edge values: 0, 1, m - 1.
        let mut one = [0u64; N];
        one[0] = 1;
        let m1 = sub_raw(&f.modulus, &one).0;
        for a in [[0u64; N], one, m1] {
            for b in [[0u64; N], one, m1] {
                assert_eq!(slow_mul(f, &f.mul(&a, &b), &f.one), slow_mul(f, &a, &b));
            }
        }
        assert_eq!(f.to_mont(&one), f.one);
        assert_eq!(f.mul(&m1, &m1), f.mul(&one, &one)); // (-1)^2 = 1
    }

    #[test]
    fn fr_arithmetic() {
        check_field(&FR, 0x9e3779b97f4a7c15);
    }

    #[test]
    fn fp_arithmetic() {
        check_field(&FP, 0xd1b54a32d192ed03);
    }

    #[test]
    fn fr_montgomery_one_known_answer() {
        assert_eq!(
            FR.one,
            hex("1824b159acc5056f998c4fefecbc4ff55884b7fa0003480200000001fffffffe")
        );
        assert_eq!(
            FR.modulus,
            [
                0xffffffff00000001,
                0x53bda402fffe5bfe,
                0x3339d80809a1d805,
                0x73eda753299d7d48
            ]
        );
    }

    #[test]
    fn fp_montgomery_one_known_answer() {
        // blst's BLS12_381_ONE (R mod p).
        assert_eq!(
            FP.one,
            [
                0x760900000002fffd,
                0xebf4000bc40c0002,
                0x5f48985753c758ba,
                0x77ce585370525745,
                0x5c071a97a256ec6d,
                0x15f65ec3fa80e493
            ]
        );
    }

    #[test]
    fn bytes_round_trip() {
        let x: Limbs<4> = hex("0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20");
        let mut be = [0u8; 32];
        limbs_to_be(&x, &mut be);
        assert_eq!(be[0], 1);
        assert_eq!(be[31], 0x20);
        let mut le = be;
        le.reverse();
        assert_eq!(limbs_from_le::<4>(&le), x);
    }
}
