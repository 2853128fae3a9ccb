//! supraseal-c2's Rust API, served by snarkpipe's shared library instead of compiled CUDA.
//!
//! The public items and signatures are those of supranational's `supraseal-c2` 0.1.x (default
//! features) or of Curio's fork (feature `cuzk`), so that either can be replaced with
//! `[patch.crates-io]`. The C ABI is snarkpipe's `src/ffi/supraseal_c2.h`: the upstream one in
//! `libsnarkpipe_supraseal.so`, the fork's in `libsnarkpipe_cuzk.so` (see build.rs).
//!
//! Beyond the originals, each panicking call has a `try_` twin returning the error instead
//! (the panicking one wraps it), and the wrappers check what the C side cannot: slice lengths,
//! density coverage and the sizes of the generic scalar and proof types.

#![allow(clippy::too_many_arguments)]

use core::ffi::{c_char, c_void};
use std::path::PathBuf;

/// What sppark's `cuda_error!()` defines: the C side's `RustError`.
pub mod cuda {
    use core::ffi::{c_char, c_void};
    use core::ptr::NonNull;

    extern "C" {
        fn free(ptr: *mut c_void);
        fn strdup(s: *const c_char) -> *mut c_char;
    }

    /// A status: `code` 0 on success, else one of the header's codes and a message that the
    /// C side strdup'ed (freed here on drop).
    #[repr(C)]
    pub struct Error {
        pub code: i32,
        str: Option<NonNull<i8>>,
    }

    impl Error {
        /// An error raised on the Rust side. The message is strdup'ed like the C side's, so
        /// that Drop frees both alike.
        pub(crate) fn new(code: i32, message: &str) -> Self {
            let bytes: Vec<u8> = message.bytes().map(|b| if b == 0 { b'?' } else { b }).collect();
            let c = std::ffi::CString::new(bytes).unwrap_or_default();
            // SAFETY: c is a valid NUL-terminated string; strdup returns malloc'ed memory or NULL.
            let p = unsafe { strdup(c.as_ptr()) };
            Error {
                code,
                str: NonNull::new(p.cast::<i8>()),
            }
        }

        fn message(&self) -> String {
            match self.str {
                // SAFETY: the C side (or new) stores a NUL-terminated string it owns no more.
                Some(p) => unsafe { std::ffi::CStr::from_ptr(p.as_ptr() as *const c_char) }
                    .to_string_lossy()
                    .into_owned(),
                None => format!("supraseal-c2 error #{}", self.code),
            }
        }
    }

    impl Drop for Error {
        fn drop(&mut self) {
            if let Some(p) = self.str.take() {
                // SAFETY: malloc'ed by the C side's strdup (or by new), freed once.
                unsafe { free(p.as_ptr() as *mut c_void) };
            }
        }
    }

    // The message is owned by the Error alone and only read through &self.
    unsafe impl Send for Error {}
    unsafe impl Sync for Error {}

    impl From<&Error> for String {
        fn from(status: &Error) -> Self {
            status.message()
        }
    }

    impl From<Error> for String {
        fn from(status: Error) -> Self {
            status.message()
        }
    }

    impl std::fmt::Display for Error {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(&self.message())
        }
    }

    impl std::fmt::Debug for Error {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("Error")
                .field("code", &self.code)
                .field("message", &self.message())
                .finish()
        }
    }

    impl std::error::Error for Error {}

    #[cfg(test)]
    mod tests {
        use super::Error;

        #[test]
        fn messages() {
            let e = Error::new(3, "shape\0mismatch");
            assert_eq!(e.code, 3);
            assert_eq!(e.to_string(), "shape?mismatch");
            assert_eq!(format!("{e:?}"), "Error { code: 3, message: \"shape?mismatch\" }");
            assert_eq!(String::from(&e), "shape?mismatch");
            assert_eq!(String::from(e), "shape?mismatch");
            let none = Error { code: 7, str: None };
            assert_eq!(none.to_string(), "supraseal-c2 error #7");
        }
    }
}

/// The header's SNARKPIPE_ABI_INVALID_ARGUMENT, for errors found on the Rust side.
const INVALID_ARGUMENT: i32 = 1;

fn invalid(message: String) -> cuda::Error {
    cuda::Error::new(INVALID_ARGUMENT, &format!("supraseal-c2: {message}"))
}

fn status(err: cuda::Error) -> Result<(), cuda::Error> {
    if err.code == 0 {
        Ok(())
    } else {
        Err(err)
    }
}

/// A reference-counted handle to a key loaded from a bellperson .params file.
#[repr(C)]
pub struct SRS {
    ptr: *const c_void,
}

extern "C" {
    fn create_SRS(ret: &mut SRS, srs_path: *const c_char, cache: bool) -> cuda::Error;
    fn clone_SRS(by_ref: &SRS) -> SRS;
    fn drop_SRS(by_ref: &mut SRS);
    fn evict_SRS(by_ref: &SRS);
}

impl Default for SRS {
    fn default() -> Self {
        Self { ptr: core::ptr::null() }
    }
}

// The path as the C side's char*: its bytes on Unix (so non-UTF-8 paths work), an error for an
// interior NUL or, elsewhere, a path that is not UTF-8 (the original panicked on both).
fn path_to_c(path: &std::path::Path) -> Result<std::ffi::CString, cuda::Error> {
    #[cfg(unix)]
    let bytes = {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().to_vec()
    };
    #[cfg(not(unix))]
    let bytes = match path.to_str() {
        Some(s) => s.as_bytes().to_vec(),
        None => return Err(invalid(format!("SRS path {path:?} is not valid UTF-8"))),
    };
    std::ffi::CString::new(bytes).map_err(|_| invalid(format!("SRS path {path:?} contains a NUL byte")))
}

impl SRS {
    /// Loads the key at `srs_path`; with `cache`, a process-wide cache returns the same key for
    /// the same path.
    pub fn try_new(srs_path: PathBuf, cache: bool) -> Result<Self, cuda::Error> {
        let c_path = path_to_c(&srs_path)?;
        let mut ret = SRS::default();
        // SAFETY: ret is a valid out-parameter, c_path a NUL-terminated string.
        let err = unsafe { create_SRS(&mut ret, c_path.as_ptr(), cache) };
        status(err).map(|()| ret)
    }

    /// Frees the key's GPU copies and takes it out of the cache; the handle stays usable.
    pub fn evict(&self) {
        if !self.ptr.is_null() {
            // SAFETY: a handle from create_SRS / clone_SRS.
            unsafe { evict_SRS(self) };
        }
    }
}

impl Drop for SRS {
    fn drop(&mut self) {
        if !self.ptr.is_null() {
            // SAFETY: drops the one reference this handle holds.
            unsafe { drop_SRS(self) };
        }
        self.ptr = core::ptr::null();
    }
}

impl Clone for SRS {
    fn clone(&self) -> Self {
        if self.ptr.is_null() {
            return SRS::default();
        }
        // SAFETY: a handle from create_SRS / clone_SRS; the result holds a new reference.
        unsafe { clone_SRS(self) }
    }
}

// The key behind the handle is immutable and reference-counted atomically on the C side.
unsafe impl Sync for SRS {}
unsafe impl Send for SRS {}

/// One circuit's synthesized assignment, laid out as bellperson's ProvingAssignment holds it.
#[repr(C)]
pub struct Assignment<Scalar> {
    // Density of queries
    pub a_aux_density: *const usize,
    pub a_aux_bit_len: usize,
    pub a_aux_popcount: usize,

    pub b_inp_density: *const usize,
    pub b_inp_bit_len: usize,
    pub b_inp_popcount: usize,

    pub b_aux_density: *const usize,
    pub b_aux_bit_len: usize,
    pub b_aux_popcount: usize,

    // Evaluations of A, B, C polynomials
    pub a: *const Scalar,
    pub b: *const Scalar,
    pub c: *const Scalar,
    pub abc_size: usize,

    // Assignments of variables
    pub inp_assignment_data: *const Scalar,
    pub inp_assignment_size: usize,

    pub aux_assignment_data: *const Scalar,
    pub aux_assignment_size: usize,
}

#[cfg(not(feature = "cuzk"))]
extern "C" {
    fn generate_groth16_proofs_c(
        provers: *const c_void,
        num_circuits: usize,
        r_s: *const c_void,
        s_s: *const c_void,
        proofs: *mut c_void,
        srs: &SRS,
    ) -> cuda::Error;
}

#[cfg(feature = "cuzk")]
extern "C" {
    fn generate_groth16_proofs_c(
        provers: *const c_void,
        num_circuits: usize,
        r_s: *const c_void,
        s_s: *const c_void,
        proofs: *mut c_void,
        srs: &SRS,
        gpu_mtx: *mut c_void,
        gpu_index: i32,
    ) -> cuda::Error;

    fn generate_groth16_proofs_start_c(
        provers: *const c_void,
        num_circuits: usize,
        r_s: *const c_void,
        s_s: *const c_void,
        srs: &SRS,
        gpu_mtx: *mut c_void,
        gpu_index: i32,
        pending: *mut *mut c_void,
    ) -> cuda::Error;

    fn finalize_groth16_proof_c(pending: *mut c_void, proofs: *mut c_void) -> cuda::Error;
    fn destroy_pending_proof(pending: *mut c_void);
    fn create_gpu_mutex() -> *mut c_void;
    fn destroy_gpu_mutex(mtx: *mut c_void);
}

// The C side reads 32-byte scalars (blst's fr_t) and writes 384-byte proofs
// (bellperson's Proof<Bls12>); other types would be read or written out of bounds.
const SCALAR_BYTES: usize = 32;
const PROOF_BYTES: usize = 384;

fn check_scalar<S>(what: &str) -> Result<(), cuda::Error> {
    let n = std::mem::size_of::<S>();
    if n != SCALAR_BYTES {
        return Err(invalid(format!(
            "{what}: the scalar type has {n} bytes, BLS12-381's Fr has {SCALAR_BYTES}"
        )));
    }
    Ok(())
}

fn check_proof<PR>(what: &str) -> Result<(), cuda::Error> {
    let n = std::mem::size_of::<PR>();
    if n != PROOF_BYTES {
        return Err(invalid(format!(
            "{what}: the proof type has {n} bytes, bellperson's Proof<Bls12> has {PROOF_BYTES}"
        )));
    }
    Ok(())
}

fn check_len(what: &str, name: &str, len: usize, num_circuits: usize) -> Result<(), cuda::Error> {
    if len != num_circuits {
        return Err(invalid(format!(
            "{what}: {name} has {len} entries but num_circuits is {num_circuits}"
        )));
    }
    Ok(())
}

// The checks and the per-circuit Assignments of the density-slice API (generate_groth16_proof,
// start_groth16_proof): every circuit shares the densities and sizes.
fn density_assignments<S, D>(
    what: &str,
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
) -> Result<Vec<Assignment<S>>, cuda::Error> {
    check_scalar::<S>(what)?;
    check_len(what, "ntt_a_scalars", ntt_a_scalars.len(), num_circuits)?;
    check_len(what, "ntt_b_scalars", ntt_b_scalars.len(), num_circuits)?;
    check_len(what, "ntt_c_scalars", ntt_c_scalars.len(), num_circuits)?;
    check_len(what, "input_assignments", input_assignments.len(), num_circuits)?;
    check_len(what, "aux_assignments", aux_assignments.len(), num_circuits)?;
    check_len(what, "r_s", r_s.len(), num_circuits)?;
    check_len(what, "s_s", s_s.len(), num_circuits)?;

    let bits = std::mem::size_of::<D>() * 8;
    if bits != 64 {
        return Err(invalid(format!(
            "{what}: only 64-bit elements in bit vectors are supported (this one has {bits})"
        )));
    }
    let covers = |name: &str, bv_len: usize, need: usize| -> Result<(), cuda::Error> {
        match bv_len.checked_mul(64) {
            Some(have) if have < need => Err(invalid(format!(
                "{what}: {name} has {bv_len} words, fewer than {need} bits"
            ))),
            _ => Ok(()),
        }
    };
    covers("a_aux_density_bv", a_aux_density_bv.len(), aux_assignments_size)?;
    covers("b_g1_aux_density_bv", b_g1_aux_density_bv.len(), aux_assignments_size)?;
    covers(
        "b_g1_input_density_bv",
        b_g1_input_density_bv.len(),
        input_assignments_size,
    )?;

    Ok((0..num_circuits)
        .map(|i| Assignment::<S> {
            a_aux_density: a_aux_density_bv.as_ptr() as *const usize,
            a_aux_bit_len: aux_assignments_size,
            a_aux_popcount: a_aux_total_density,

            b_inp_density: b_g1_input_density_bv.as_ptr() as *const usize,
            b_inp_bit_len: input_assignments_size,
            b_inp_popcount: b_g1_input_total_density,

            b_aux_density: b_g1_aux_density_bv.as_ptr() as *const usize,
            b_aux_bit_len: aux_assignments_size,
            b_aux_popcount: b_g1_aux_total_density,

            a: ntt_a_scalars[i],
            b: ntt_b_scalars[i],
            c: ntt_c_scalars[i],
            abc_size: ntt_scalars_actual_size,

            inp_assignment_data: input_assignments[i],
            inp_assignment_size: input_assignments_size,

            aux_assignment_data: aux_assignments[i],
            aux_assignment_size: aux_assignments_size,
        })
        .collect())
}

// Proves a batch of Assignments; the one place that calls generate_groth16_proofs_c.
fn prove_assignments<S, PR>(
    what: &str,
    provers: &[Assignment<S>],
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
    gpu_mtx: *mut c_void,
    gpu_index: i32,
) -> Result<(), cuda::Error> {
    check_scalar::<S>(what)?;
    check_proof::<PR>(what)?;
    let n = provers.len();
    check_len(what, "r_s", r_s.len(), n)?;
    check_len(what, "s_s", s_s.len(), n)?;
    check_len(what, "proofs", proofs.len(), n)?;
    let (provers_p, r_p, s_p, proofs_p) = (
        provers.as_ptr() as *const c_void,
        r_s.as_ptr() as *const c_void,
        s_s.as_ptr() as *const c_void,
        proofs.as_mut_ptr() as *mut c_void,
    );
    // SAFETY: the slices hold n entries of the types the header names (checked above); the
    // pointers inside the Assignments are the caller's promise, as with the original.
    #[cfg(not(feature = "cuzk"))]
    let err = {
        let _ = (gpu_mtx, gpu_index);
        unsafe { generate_groth16_proofs_c(provers_p, n, r_p, s_p, proofs_p, srs) }
    };
    #[cfg(feature = "cuzk")]
    let err = unsafe { generate_groth16_proofs_c(provers_p, n, r_p, s_p, proofs_p, srs, gpu_mtx, gpu_index) };
    status(err)
}

fn or_panic<T>(r: Result<T, cuda::Error>) -> T {
    match r {
        Ok(v) => v,
        Err(err) => panic!("{}", String::from(err)),
    }
}

/// Proves `num_circuits` circuits given as per-circuit pointers and shared densities
/// (bellperson's older call); panics on failure, as the original does.
#[cfg(not(feature = "cuzk"))]
pub fn generate_groth16_proof<S, D, PR>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
) {
    or_panic(try_generate_groth16_proof(
        ntt_a_scalars,
        ntt_b_scalars,
        ntt_c_scalars,
        ntt_scalars_actual_size,
        input_assignments,
        aux_assignments,
        input_assignments_size,
        aux_assignments_size,
        a_aux_density_bv,
        b_g1_input_density_bv,
        b_g1_aux_density_bv,
        a_aux_total_density,
        b_g1_input_total_density,
        b_g1_aux_total_density,
        num_circuits,
        r_s,
        s_s,
        proofs,
        srs,
    ))
}

/// generate_groth16_proof, returning the error instead of panicking.
#[cfg(not(feature = "cuzk"))]
pub fn try_generate_groth16_proof<S, D, PR>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
) -> Result<(), cuda::Error> {
    const WHAT: &str = "generate_groth16_proof";
    check_len(WHAT, "proofs", proofs.len(), num_circuits)?;
    let provers = density_assignments(
        WHAT,
        ntt_a_scalars,
        ntt_b_scalars,
        ntt_c_scalars,
        ntt_scalars_actual_size,
        input_assignments,
        aux_assignments,
        input_assignments_size,
        aux_assignments_size,
        a_aux_density_bv,
        b_g1_input_density_bv,
        b_g1_aux_density_bv,
        a_aux_total_density,
        b_g1_input_total_density,
        b_g1_aux_total_density,
        num_circuits,
        r_s,
        s_s,
    )?;
    prove_assignments(WHAT, &provers, r_s, s_s, proofs, srs, core::ptr::null_mut(), -1)
}

/// Proves `num_circuits` circuits given as per-circuit pointers and shared densities, holding
/// `gpu_mtx` (from alloc_gpu_mutex, or null) around the GPU work on device `gpu_index`
/// (-1: any); panics on failure, as the original does.
#[cfg(feature = "cuzk")]
pub fn generate_groth16_proof<S, D, PR>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
    gpu_mtx: *mut c_void,
    gpu_index: i32,
) {
    or_panic(try_generate_groth16_proof(
        ntt_a_scalars,
        ntt_b_scalars,
        ntt_c_scalars,
        ntt_scalars_actual_size,
        input_assignments,
        aux_assignments,
        input_assignments_size,
        aux_assignments_size,
        a_aux_density_bv,
        b_g1_input_density_bv,
        b_g1_aux_density_bv,
        a_aux_total_density,
        b_g1_input_total_density,
        b_g1_aux_total_density,
        num_circuits,
        r_s,
        s_s,
        proofs,
        srs,
        gpu_mtx,
        gpu_index,
    ))
}

/// generate_groth16_proof, returning the error instead of panicking.
#[cfg(feature = "cuzk")]
pub fn try_generate_groth16_proof<S, D, PR>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
    gpu_mtx: *mut c_void,
    gpu_index: i32,
) -> Result<(), cuda::Error> {
    const WHAT: &str = "generate_groth16_proof";
    check_len(WHAT, "proofs", proofs.len(), num_circuits)?;
    let provers = density_assignments(
        WHAT,
        ntt_a_scalars,
        ntt_b_scalars,
        ntt_c_scalars,
        ntt_scalars_actual_size,
        input_assignments,
        aux_assignments,
        input_assignments_size,
        aux_assignments_size,
        a_aux_density_bv,
        b_g1_input_density_bv,
        b_g1_aux_density_bv,
        a_aux_total_density,
        b_g1_input_total_density,
        b_g1_aux_total_density,
        num_circuits,
        r_s,
        s_s,
    )?;
    prove_assignments(WHAT, &provers, r_s, s_s, proofs, srs, gpu_mtx, gpu_index)
}

/// Proves one circuit per Assignment (bellperson's call); panics on failure, as the original
/// does. With `cuzk`, no caller mutex and any device.
pub fn generate_groth16_proofs<S, PR>(provers: &[Assignment<S>], r_s: &[S], s_s: &[S], proofs: &mut [PR], srs: &SRS) {
    or_panic(try_generate_groth16_proofs(provers, r_s, s_s, proofs, srs))
}

/// generate_groth16_proofs, returning the error instead of panicking.
pub fn try_generate_groth16_proofs<S, PR>(
    provers: &[Assignment<S>],
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
) -> Result<(), cuda::Error> {
    prove_assignments(
        "generate_groth16_proofs",
        provers,
        r_s,
        s_s,
        proofs,
        srs,
        core::ptr::null_mut(),
        -1,
    )
}

/// A mutex for `gpu_mtx`, held by the library around each call's GPU work; free it with
/// free_gpu_mutex.
#[cfg(feature = "cuzk")]
pub fn alloc_gpu_mutex() -> *mut c_void {
    // SAFETY: no arguments; returns a new heap object.
    unsafe { create_gpu_mutex() }
}

/// Frees a mutex from alloc_gpu_mutex.
///
/// # Safety
/// `ptr` came from alloc_gpu_mutex, is freed once, and no call is using it.
#[cfg(feature = "cuzk")]
pub unsafe fn free_gpu_mutex(ptr: *mut c_void) {
    destroy_gpu_mutex(ptr);
}

/// The split form's first half: runs the GPU part under `gpu_mtx` and returns a pending
/// handle for finish_groth16_proof (or drop_pending_proof); panics on failure, as the
/// original does. The scalars and densities may be freed once it returns.
#[cfg(feature = "cuzk")]
#[allow(clippy::not_unsafe_ptr_arg_deref)] // the original's signature: safe, taking raw pointers
pub fn start_groth16_proof<S, D>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    srs: &SRS,
    gpu_mtx: *mut c_void,
    gpu_index: i32,
) -> *mut c_void {
    or_panic(try_start_groth16_proof(
        ntt_a_scalars,
        ntt_b_scalars,
        ntt_c_scalars,
        ntt_scalars_actual_size,
        input_assignments,
        aux_assignments,
        input_assignments_size,
        aux_assignments_size,
        a_aux_density_bv,
        b_g1_input_density_bv,
        b_g1_aux_density_bv,
        a_aux_total_density,
        b_g1_input_total_density,
        b_g1_aux_total_density,
        num_circuits,
        r_s,
        s_s,
        srs,
        gpu_mtx,
        gpu_index,
    ))
}

/// start_groth16_proof, returning the error instead of panicking.
#[cfg(feature = "cuzk")]
#[allow(clippy::not_unsafe_ptr_arg_deref)] // the original's signature: safe, taking raw pointers
pub fn try_start_groth16_proof<S, D>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    srs: &SRS,
    gpu_mtx: *mut c_void,
    gpu_index: i32,
) -> Result<*mut c_void, cuda::Error> {
    const WHAT: &str = "start_groth16_proof";
    let provers = density_assignments(
        WHAT,
        ntt_a_scalars,
        ntt_b_scalars,
        ntt_c_scalars,
        ntt_scalars_actual_size,
        input_assignments,
        aux_assignments,
        input_assignments_size,
        aux_assignments_size,
        a_aux_density_bv,
        b_g1_input_density_bv,
        b_g1_aux_density_bv,
        a_aux_total_density,
        b_g1_input_total_density,
        b_g1_aux_total_density,
        num_circuits,
        r_s,
        s_s,
    )?;
    let mut pending: *mut c_void = core::ptr::null_mut();
    // SAFETY: as in prove_assignments; pending is a valid out-parameter.
    let err = unsafe {
        generate_groth16_proofs_start_c(
            provers.as_ptr() as *const c_void,
            num_circuits,
            r_s.as_ptr() as *const c_void,
            s_s.as_ptr() as *const c_void,
            srs,
            gpu_mtx,
            gpu_index,
            &mut pending,
        )
    };
    status(err).map(|()| pending)
}

/// The split form's second half: assembles, verifies and writes the proofs of `handle` (one
/// per circuit started; `proofs` must hold that many) and frees the handle, whatever the
/// outcome; panics on failure, as the original does.
#[cfg(feature = "cuzk")]
#[allow(clippy::not_unsafe_ptr_arg_deref)] // the original's signature: safe, taking raw pointers
pub fn finish_groth16_proof<PR>(handle: *mut c_void, proofs: &mut [PR]) {
    or_panic(try_finish_groth16_proof(handle, proofs))
}

/// finish_groth16_proof, returning the error instead of panicking (the handle is freed
/// either way).
#[cfg(feature = "cuzk")]
#[allow(clippy::not_unsafe_ptr_arg_deref)] // the original's signature: safe, taking raw pointers
pub fn try_finish_groth16_proof<PR>(handle: *mut c_void, proofs: &mut [PR]) -> Result<(), cuda::Error> {
    if let Err(err) = check_proof::<PR>("finish_groth16_proof") {
        // SAFETY: the handle is consumed whatever happens, as finalize would.
        unsafe { drop_pending_proof(handle) };
        return Err(err);
    }
    // SAFETY: handle from start_groth16_proof, consumed here; proofs holds its circuits.
    let err = unsafe { finalize_groth16_proof_c(handle, proofs.as_mut_ptr() as *mut c_void) };
    status(err)
}

/// Abandons a pending proof from start_groth16_proof.
///
/// # Safety
/// `handle` came from start_groth16_proof and was neither finished nor dropped.
#[cfg(feature = "cuzk")]
pub unsafe fn drop_pending_proof(handle: *mut c_void) {
    if !handle.is_null() {
        destroy_pending_proof(handle);
    }
}

// These run without touching the library's functions (it must still be there to link).
#[cfg(test)]
mod tests {
    use super::*;

    type Fr = [u64; 4];
    type Proof = [u64; 48];

    #[test]
    fn null_srs_needs_no_library_call() {
        let s = SRS::default();
        s.evict();
        let c = s.clone();
        assert!(c.ptr.is_null());
    }

    #[test]
    fn bad_paths_are_errors() {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStringExt;
            let p = PathBuf::from(std::ffi::OsString::from_vec(b"a\0b".to_vec()));
            let e = SRS::try_new(p, false).err().unwrap();
            assert_eq!(e.code, INVALID_ARGUMENT);
            assert!(e.to_string().contains("NUL"));
        }
    }

    #[test]
    fn wrapper_checks() {
        let srs = SRS::default();
        let (r, s) = ([[0u64; 4]; 1], [[0u64; 4]; 1]);
        let mut two = [[0u64; 48]; 2];
        let none: [Assignment<Fr>; 0] = [];
        // proofs / r_s of the wrong length
        let e = try_generate_groth16_proofs::<Fr, Proof>(&none, &r, &s, &mut two[..0], &srs).unwrap_err();
        assert!(e.to_string().contains("r_s has 1 entries"), "{e}");
        // a scalar type that is not 32 bytes, a proof type that is not 384
        let e = try_generate_groth16_proofs::<u64, Proof>(&[], &[], &[], &mut two[..0], &srs).unwrap_err();
        assert!(e.to_string().contains("scalar type has 8 bytes"), "{e}");
        let e = try_generate_groth16_proofs::<Fr, u8>(&none, &[], &[], &mut [], &srs).unwrap_err();
        assert!(e.to_string().contains("proof type has 1 bytes"), "{e}");

        // the density-slice API: 32-bit density words, and densities too short for the sizes
        let ptr = [core::ptr::null::<Fr>(); 1];
        let words32 = [0u32; 4];
        let words = [0u64; 1];
        let mut one = [[0u64; 48]; 1];
        #[cfg(not(feature = "cuzk"))]
        macro_rules! call {
            ($d:expr, $aux:expr) => {
                try_generate_groth16_proof(
                    &ptr, &ptr, &ptr, 4, &ptr, &ptr, 1, $aux, $d, $d, $d, 0, 0, 0, 1, &r, &s, &mut one, &srs,
                )
            };
        }
        #[cfg(feature = "cuzk")]
        macro_rules! call {
            ($d:expr, $aux:expr) => {
                try_generate_groth16_proof(
                    &ptr,
                    &ptr,
                    &ptr,
                    4,
                    &ptr,
                    &ptr,
                    1,
                    $aux,
                    $d,
                    $d,
                    $d,
                    0,
                    0,
                    0,
                    1,
                    &r,
                    &s,
                    &mut one,
                    &srs,
                    core::ptr::null_mut(),
                    -1,
                )
            };
        }
        let e = call!(&words32[..], 1).unwrap_err();
        assert!(e.to_string().contains("64-bit"), "{e}");
        let e = call!(&words[..], 65).unwrap_err();
        assert!(
            e.to_string()
                .contains("a_aux_density_bv has 1 words, fewer than 65 bits"),
            "{e}"
        );
    }
}
