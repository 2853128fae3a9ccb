//! snarkpipe-abi-check DIR: proves DIR/circuit.snkr1cs at DIR/witness-{0,1,2}.wtns under
//! DIR/key.params through supraseal-c2's Rust API, the way bellperson's supraseal prover
//! (src/groth16/prover/supraseal.rs) drives it, and writes each proof in bellperson's
//! compressed encoding to DIR/out/<abi>-<case>-<i>.proof.
//!
//! stdout: one line per proof file, "<path> <witness index>", for the caller to verify with
//! that witness's public inputs. stderr: progress and errors. Exit status: 0 when every
//! proof was written, 2 for a bad command line or input file, 1 for any other failure.

use std::ffi::OsString;
use std::io::Read;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use abi_check::curve::Proof;
use abi_check::field::{limbs_from_le, FR};
use abi_check::r1cs::{self, Fr, R1cs};
use abi_check::synth::{self, Densities, Synthesized};
use abi_check::wtns;
use supraseal_c2::{Assignment, SRS};

#[cfg(not(feature = "cuzk"))]
const ABI: &str = "supraseal";
#[cfg(feature = "cuzk")]
const ABI: &str = "cuzk";

const WITNESSES: usize = 3;

enum Failure {
    /// The command line or an input file is wrong (exit 2).
    Input(String),
    /// The library or a check of its results failed (exit 1).
    Abi(String),
}

fn abi(msg: impl Into<String>) -> Failure {
    Failure::Abi(msg.into())
}

fn log(msg: &str) {
    eprintln!("snarkpipe-abi-check ({ABI}): {msg}");
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    if args.len() != 1 {
        eprintln!(
            "usage: snarkpipe-abi-check DIR\n  DIR holds key.params, circuit.snkr1cs and witness-0..2.wtns; \
             proofs go to DIR/out/{ABI}-<case>-<i>.proof"
        );
        return ExitCode::from(2);
    }
    match run(Path::new(&args[0])) {
        Ok(()) => {
            log("all checks passed");
            ExitCode::SUCCESS
        }
        Err(Failure::Input(m)) => {
            eprintln!("snarkpipe-abi-check ({ABI}): input error: {m}");
            ExitCode::from(2)
        }
        Err(Failure::Abi(m)) => {
            eprintln!("snarkpipe-abi-check ({ABI}): FAILED: {m}");
            ExitCode::from(1)
        }
    }
}

/// Random Fr values (Montgomery form) from /dev/urandom, uniform below r.
struct Urandom(std::fs::File);

impl Urandom {
    fn open() -> Result<Self, Failure> {
        std::fs::File::open("/dev/urandom")
            .map(Urandom)
            .map_err(|e| abi(format!("cannot open /dev/urandom: {e}")))
    }

    fn scalar(&mut self) -> Result<Fr, Failure> {
        loop {
            let mut b = [0u8; 32];
            self.0
                .read_exact(&mut b)
                .map_err(|e| abi(format!("cannot read /dev/urandom: {e}")))?;
            let mut x: Fr = limbs_from_le(&b);
            x[3] &= (1u64 << 63) - 1; // r < 2^255: keep 255 bits, then reject those >= r
            if FR.is_reduced(&x) {
                return Ok(FR.to_mont(&x));
            }
        }
    }

    fn scalars(&mut self, n: usize) -> Result<Vec<Fr>, Failure> {
        (0..n).map(|_| self.scalar()).collect()
    }
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else {
        "(no message)".into()
    }
}

/// Runs one of supraseal-c2's panicking calls, turning its panic into a failure.
fn call<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, Failure> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| abi(format!("{what} panicked: {}", panic_message(&*p))))
}

/// Proof buffers as bellperson makes them (with_capacity + set_len), but filled with a
/// pattern that no written proof has, so that one left unwritten is caught.
fn proof_buffers(n: usize) -> Vec<Proof> {
    vec![Proof::unwritten(); n]
}

/// What bellperson's From<&ProvingAssignment> builds.
fn assignment(w: &Synthesized, d: &Densities) -> Assignment<Fr> {
    Assignment {
        a_aux_density: d.a_aux.as_ptr() as *const usize,
        a_aux_bit_len: w.aux.len(),
        a_aux_popcount: d.a_aux_popcount,
        b_inp_density: d.b_inp.as_ptr() as *const usize,
        b_inp_bit_len: w.inputs.len(),
        b_inp_popcount: d.b_inp_popcount,
        b_aux_density: d.b_aux.as_ptr() as *const usize,
        b_aux_bit_len: w.aux.len(),
        b_aux_popcount: d.b_aux_popcount,
        a: w.a.as_ptr(),
        b: w.b.as_ptr(),
        c: w.c.as_ptr(),
        abc_size: w.a.len(),
        inp_assignment_data: w.inputs.as_ptr(),
        inp_assignment_size: w.inputs.len(),
        aux_assignment_data: w.aux.as_ptr(),
        aux_assignment_size: w.aux.len(),
    }
}

/// The per-circuit pointers of the density-slice API (generate_groth16_proof and
/// start_groth16_proof): a, b, c, inputs, aux.
struct Pointers {
    a: Vec<*const Fr>,
    b: Vec<*const Fr>,
    c: Vec<*const Fr>,
    inp: Vec<*const Fr>,
    aux: Vec<*const Fr>,
}

fn pointers(ws: &[&Synthesized]) -> Pointers {
    Pointers {
        a: ws.iter().map(|w| w.a.as_ptr()).collect(),
        b: ws.iter().map(|w| w.b.as_ptr()).collect(),
        c: ws.iter().map(|w| w.c.as_ptr()).collect(),
        inp: ws.iter().map(|w| w.inputs.as_ptr()).collect(),
        aux: ws.iter().map(|w| w.aux.as_ptr()).collect(),
    }
}

/// Checks and writes one case's proofs (proofs[i] proves witness `witness[i]`) as
/// <abi>-<case>-<i>.proof.
fn write_proofs(out_dir: &Path, case: &str, proofs: &[Proof], witness: &[usize]) -> Result<(), Failure> {
    for (i, p) in proofs.iter().enumerate() {
        write_proofs_named(out_dir, &format!("{ABI}-{case}-{i}.proof"), case, p, witness[i])?;
    }
    Ok(())
}

/// Checks and writes one proof, and prints its line.
fn write_proofs_named(out_dir: &Path, file: &str, case: &str, p: &Proof, witness: usize) -> Result<(), Failure> {
    let enc = p
        .compress()
        .map_err(|e| abi(format!("{case}: {file} (witness {witness}): {e}")))?;
    let path = out_dir.join(file);
    std::fs::write(&path, enc).map_err(|e| abi(format!("cannot write {}: {e}", path.display())))?;
    println!("{} {}", path.display(), witness);
    Ok(())
}

/// generate_groth16_proof (the density-slice API) on a batch; with cuzk, under `gpu`
/// (mutex, device).
#[allow(clippy::too_many_arguments)]
fn prove_single(
    circuit: &R1cs,
    ws: &[&Synthesized],
    d: &Densities,
    r_s: &[Fr],
    s_s: &[Fr],
    proofs: &mut [Proof],
    srs: &SRS,
    gpu: (*mut core::ffi::c_void, i32),
) -> Result<(), Failure> {
    let p = pointers(ws);
    #[cfg(not(feature = "cuzk"))]
    let _ = gpu;
    call("generate_groth16_proof", || {
        #[cfg(not(feature = "cuzk"))]
        supraseal_c2::generate_groth16_proof::<Fr, u64, Proof>(
            &p.a,
            &p.b,
            &p.c,
            circuit.num_constraints,
            &p.inp,
            &p.aux,
            circuit.num_inputs,
            circuit.num_aux,
            &d.a_aux,
            &d.b_inp,
            &d.b_aux,
            d.a_aux_popcount,
            d.b_inp_popcount,
            d.b_aux_popcount,
            ws.len(),
            r_s,
            s_s,
            proofs,
            srs,
        );
        #[cfg(feature = "cuzk")]
        supraseal_c2::generate_groth16_proof::<Fr, u64, Proof>(
            &p.a,
            &p.b,
            &p.c,
            circuit.num_constraints,
            &p.inp,
            &p.aux,
            circuit.num_inputs,
            circuit.num_aux,
            &d.a_aux,
            &d.b_inp,
            &d.b_aux,
            d.a_aux_popcount,
            d.b_inp_popcount,
            d.b_aux_popcount,
            ws.len(),
            r_s,
            s_s,
            proofs,
            srs,
            gpu.0,
            gpu.1,
        );
    })
}

fn run(dir: &Path) -> Result<(), Failure> {
    if !dir.is_dir() {
        return Err(Failure::Input(format!("{} is not a directory", dir.display())));
    }
    let key = dir.join("key.params");
    if !key.is_file() {
        return Err(Failure::Input(format!("{} does not exist", key.display())));
    }

    // Synthesis, as bellperson's synthesize_circuits_batch leaves it.
    let circuit = r1cs::read(&dir.join("circuit.snkr1cs")).map_err(Failure::Input)?;
    log(&format!(
        "circuit: {} inputs (ONE included), {} aux, {} constraints (input constraints included), nnz {}/{}/{}",
        circuit.num_inputs,
        circuit.num_aux,
        circuit.num_constraints,
        circuit.a.col.len(),
        circuit.b.col.len(),
        circuit.c.col.len()
    ));
    let densities = Densities::of(&circuit);
    let mut witnesses = Vec::with_capacity(WITNESSES);
    for k in 0..WITNESSES {
        let path = dir.join(format!("witness-{k}.wtns"));
        let values = wtns::read(&path).map_err(Failure::Input)?;
        let s = synth::synthesize(&circuit, &values).map_err(|e| Failure::Input(format!("{}: {e}", path.display())))?;
        witnesses.push(s);
    }
    log(&format!("{WITNESSES} witnesses read; each satisfies every constraint"));

    let out_dir = dir.join("out");
    std::fs::create_dir_all(&out_dir).map_err(|e| abi(format!("cannot create {}: {e}", out_dir.display())))?;
    let mut rng = Urandom::open()?;

    let srs = srs_checks(dir, &key)?;

    #[cfg(feature = "cuzk")]
    let mtx = {
        let m = supraseal_c2::alloc_gpu_mutex();
        if m.is_null() {
            return Err(abi("alloc_gpu_mutex returned NULL"));
        }
        m
    };

    // Batch of 1 through the density-slice API.
    {
        let (r_s, s_s) = (rng.scalars(1)?, rng.scalars(1)?);
        let mut proofs = proof_buffers(1);
        #[cfg(not(feature = "cuzk"))]
        let gpu: (*mut core::ffi::c_void, i32) = (core::ptr::null_mut(), -1);
        #[cfg(feature = "cuzk")]
        let gpu = (mtx, -1);
        prove_single(
            &circuit,
            &[&witnesses[0]],
            &densities,
            &r_s,
            &s_s,
            &mut proofs,
            &srs,
            gpu,
        )?;
        write_proofs(&out_dir, "single", &proofs, &[0])?;
        log("single: batch of 1 through generate_groth16_proof");
    }

    // The key's GPU copies go; the next proof must upload them again.
    srs.evict();

    // Batch of 3 through the Assignment API, as bellperson's proof_circuits_batch calls it.
    {
        let provers: Vec<Assignment<Fr>> = witnesses.iter().map(|w| assignment(w, &densities)).collect();
        let (r_s, s_s) = (rng.scalars(WITNESSES)?, rng.scalars(WITNESSES)?);
        let mut proofs = proof_buffers(WITNESSES);
        call("generate_groth16_proofs", || {
            supraseal_c2::generate_groth16_proofs(&provers, &r_s, &s_s, &mut proofs, &srs)
        })?;
        write_proofs(&out_dir, "batch3", &proofs, &[0, 1, 2])?;
        log("batch3: batch of 3 (after evict) through generate_groth16_proofs");
    }

    rejection_checks(&witnesses[0], &densities, &srs, &mut rng)?;

    #[cfg(feature = "cuzk")]
    {
        let split = split_checks(&circuit, &witnesses, &densities, &srs, mtx, &mut rng);
        // SAFETY: from alloc_gpu_mutex; every call using it has returned.
        unsafe { supraseal_c2::free_gpu_mutex(mtx) };
        for (slot, (w, proofs)) in split?.into_iter().enumerate() {
            // One file per thread: <abi>-split-<slot>.
            write_proofs_named(&out_dir, &format!("{ABI}-split-{slot}.proof"), "split", &proofs[0], w)?;
        }
        log("split: two threads, start_groth16_proof / finish_groth16_proof under one gpu mutex; abandoning a pending proof works");
    }

    drop(srs);
    Ok(())
}

/// SRS::try_new's error path (a missing file, a path with a NUL), then the key itself, with
/// clone and drop.
fn srs_checks(dir: &Path, key: &Path) -> Result<SRS, Failure> {
    let missing = dir.join("does-not-exist.params");
    match SRS::try_new(missing.clone(), false) {
        Ok(_) => {
            return Err(abi(format!(
                "SRS::try_new({}) succeeded for a missing file",
                missing.display()
            )))
        }
        Err(e) => {
            let msg = e.to_string();
            if e.code == 0 || !msg.contains(&missing.display().to_string()) {
                return Err(abi(format!(
                    "SRS::try_new of a missing file: the error (code {}, {msg:?}) does not name the path {}",
                    e.code,
                    missing.display()
                )));
            }
            log(&format!("SRS::try_new of a missing file fails: code {}: {msg}", e.code));
        }
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        let nul = PathBuf::from(OsString::from_vec(b"key\0.params".to_vec()));
        match SRS::try_new(nul, false) {
            Ok(_) => return Err(abi("SRS::try_new succeeded for a path containing NUL")),
            Err(e) if e.code != 0 => log(&format!(
                "SRS::try_new of a path with a NUL fails: code {}: {e}",
                e.code
            )),
            Err(e) => {
                return Err(abi(format!(
                    "SRS::try_new of a path with a NUL: an error with code 0 ({e:?})"
                )))
            }
        }
    }
    let srs = SRS::try_new(key.to_path_buf(), false)
        .map_err(|e| abi(format!("SRS::try_new({}) failed: code {}: {e}", key.display(), e.code)))?;
    // Reference counting: a clone dropped while the original lives, then the original dropped
    // while a clone lives on (the one every proof below uses).
    drop(srs.clone());
    let kept = srs.clone();
    drop(srs);
    log(&format!(
        "SRS::try_new({}) loaded the key; clones and the original dropped, one clone kept",
        key.display()
    ));
    Ok(kept)
}

/// Bad input must come back as an error, with no proof written: an unsatisfied constraint,
/// popcounts that disagree with the densities, and (caught on the Rust side) a proof slice
/// of the wrong length.
fn rejection_checks(w: &Synthesized, d: &Densities, srs: &SRS, rng: &mut Urandom) -> Result<(), Failure> {
    let (r_s, s_s) = (rng.scalars(1)?, rng.scalars(1)?);
    let expect_rejected = |what: &str, provers: &[Assignment<Fr>], proofs_len: usize| -> Result<(), Failure> {
        let mut proofs = proof_buffers(proofs_len);
        match supraseal_c2::try_generate_groth16_proofs(provers, &r_s, &s_s, &mut proofs, srs) {
            Ok(()) => Err(abi(format!("{what}: generate_groth16_proofs_c accepted it"))),
            Err(e) if e.code == 0 => Err(abi(format!("{what}: an error with code 0 ({e:?})"))),
            Err(e) => {
                if !proofs.iter().all(Proof::is_unwritten) {
                    return Err(abi(format!(
                        "{what}: rejected (code {}), but a proof was written",
                        e.code
                    )));
                }
                log(&format!("{what}: rejected with code {}: {e}", e.code));
                Ok(())
            }
        }
    };

    // c[0] + 1: A·z × B·z ≠ C·z at constraint 0.
    let mut c = w.c.clone();
    c[0] = FR.add(&c[0], &FR.one);
    let mut bad = assignment(w, d);
    bad.c = c.as_ptr();
    expect_rejected("an unsatisfied witness", &[bad], 1)?;

    let mut bad = assignment(w, d);
    bad.b_inp_popcount += 1;
    expect_rejected("b_inp_popcount one more than its bits", &[bad], 1)?;

    expect_rejected("2 proof slots for 1 circuit", &[assignment(w, d)], 2)?;
    Ok(())
}

/// A raw pointer shared between the split threads (the gpu mutex is meant for that).
#[cfg(feature = "cuzk")]
#[derive(Clone, Copy)]
struct Shared(*mut core::ffi::c_void);
#[cfg(feature = "cuzk")]
unsafe impl Send for Shared {}
#[cfg(feature = "cuzk")]
unsafe impl Sync for Shared {}
#[cfg(feature = "cuzk")]
impl Shared {
    fn get(self) -> *mut core::ffi::c_void {
        self.0
    }
}

/// start_groth16_proof for one batch of the density-slice API.
#[cfg(feature = "cuzk")]
fn start(
    circuit: &R1cs,
    ws: &[&Synthesized],
    d: &Densities,
    r_s: &[Fr],
    s_s: &[Fr],
    srs: &SRS,
    mtx: *mut core::ffi::c_void,
) -> Result<*mut core::ffi::c_void, Failure> {
    let p = pointers(ws);
    let handle = call("start_groth16_proof", || {
        supraseal_c2::start_groth16_proof::<Fr, u64>(
            &p.a,
            &p.b,
            &p.c,
            circuit.num_constraints,
            &p.inp,
            &p.aux,
            circuit.num_inputs,
            circuit.num_aux,
            &d.a_aux,
            &d.b_inp,
            &d.b_aux,
            d.a_aux_popcount,
            d.b_inp_popcount,
            d.b_aux_popcount,
            ws.len(),
            r_s,
            s_s,
            srs,
            mtx,
            -1,
        )
    })?;
    if handle.is_null() {
        return Err(abi("start_groth16_proof returned a NULL handle"));
    }
    Ok(handle)
}

/// Two threads at once, each start + finish on its own batch of 1 (witnesses 1 and 2) under
/// the shared mutex; then a started proof abandoned with drop_pending_proof. Returns
/// (witness, proofs) per thread.
#[cfg(feature = "cuzk")]
fn split_checks(
    circuit: &R1cs,
    witnesses: &[Synthesized],
    d: &Densities,
    srs: &SRS,
    mtx: *mut core::ffi::c_void,
    rng: &mut Urandom,
) -> Result<Vec<(usize, Vec<Proof>)>, Failure> {
    let jobs: Vec<(usize, Vec<Fr>, Vec<Fr>)> = [1usize, 2]
        .iter()
        .map(|&w| Ok((w, rng.scalars(1)?, rng.scalars(1)?)))
        .collect::<Result<_, Failure>>()?;
    let shared = Shared(mtx);
    let barrier = std::sync::Barrier::new(jobs.len());
    let results: Vec<Result<(usize, Vec<Proof>), Failure>> = std::thread::scope(|scope| {
        let handles: Vec<_> = jobs
            .iter()
            .map(|(w, r_s, s_s)| {
                let barrier = &barrier;
                scope.spawn(move || {
                    barrier.wait();
                    let ws = [&witnesses[*w]];
                    let handle = start(circuit, &ws, d, r_s, s_s, srs, shared.get())?;
                    let mut proofs = proof_buffers(1);
                    call("finish_groth16_proof", || {
                        supraseal_c2::finish_groth16_proof(handle, &mut proofs)
                    })?;
                    Ok((*w, proofs))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|p| Err(abi(format!("a split thread panicked: {}", panic_message(&*p)))))
            })
            .collect()
    });
    let results: Vec<(usize, Vec<Proof>)> = results.into_iter().collect::<Result<_, Failure>>()?;

    let (r_s, s_s) = (rng.scalars(1)?, rng.scalars(1)?);
    let handle = start(circuit, &[&witnesses[0]], d, &r_s, &s_s, srs, mtx)?;
    // SAFETY: a handle from start_groth16_proof, neither finished nor dropped.
    unsafe { supraseal_c2::drop_pending_proof(handle) };
    log("a started proof was abandoned with drop_pending_proof");
    Ok(results)
}
