//! Build script: decides whether the bitboard kernels use BMI2's `pext` (the `flank_pext` cfg).
//!
//! `pext` is one fast instruction on Intel CPUs since Haswell and on AMD CPUs since Zen 3, but
//! microcoded and many times slower on AMD CPUs before Zen 3 (families 0x15–0x18: Excavator,
//! Zen, Zen+, Zen 2, Hygon Dhyana), which still report BMI2. There the portable kernels are
//! faster (on a Zen 1 EPYC: `flank bench` in 0.68 of the time, FFO #45, #48, #49 at 1 thread
//! in 0.69), as Edax and Egaroucid also avoid `pext` there. So `flank_pext` is set when the
//! target has BMI2, unless the build is for such a CPU: `target-cpu=native` (the project's
//! default, `.cargo/config.toml`) on such a host, or `target-cpu=znver1`/`znver2`/`bdver4`.
//! A generic target with BMI2 (`x86-64-v3`, `haswell`) gets `pext`: a binary meant for Zen 1
//! or Zen 2 as well is built with `FLANK_PEXT=off`. `FLANK_PEXT=on` or `off` overrides the
//! choice (any other value is ignored with a warning).

use std::env;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(flank_pext)");
    println!("cargo::rerun-if-env-changed=FLANK_PEXT");
    println!("cargo::rerun-if-changed=build.rs");
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let features = env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let has_bmi2 = arch == "x86_64" && features.split(',').any(|f| f == "bmi2");
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let auto = || has_bmi2 && !slow_pext_target(&flags);
    let pext = match env::var("FLANK_PEXT").as_deref() {
        Ok("on") => has_bmi2,
        Ok("off") => false,
        Ok(other) => {
            println!("cargo::warning=FLANK_PEXT={other:?} is neither on nor off: ignored");
            auto()
        }
        Err(_) => auto(),
    };
    if pext {
        println!("cargo::rustc-cfg=flank_pext");
    }
}

/// Whether the rustc flags (`CARGO_ENCODED_RUSTFLAGS`: separated by 0x1f) build for a CPU
/// whose `pext` is microcoded.
fn slow_pext_target(flags: &str) -> bool {
    // The last `target-cpu=` wins, written `-C target-cpu=X` (two pieces), `-Ctarget-cpu=X`
    // or `--codegen=target-cpu=X`.
    let cpu = flags
        .split('\u{1f}')
        .filter_map(|f| {
            let f = f.strip_prefix("--codegen=").unwrap_or(f);
            f.strip_prefix("-C")
                .unwrap_or(f)
                .strip_prefix("target-cpu=")
        })
        .next_back();
    match cpu {
        Some("native") => host_pext_is_slow(),
        Some(c) => matches!(c, "bdver4" | "znver1" | "znver2"),
        None => false,
    }
}

/// Whether this machine (the build host) is an AMD or Hygon CPU of a family before Zen 3
/// (0x19), whose `pext` is microcoded.
#[cfg(target_arch = "x86_64")]
fn host_pext_is_slow() -> bool {
    use std::arch::x86_64::__cpuid;
    #[allow(unused_unsafe)]
    // SAFETY: `cpuid` exists on every x86-64 CPU; leaves 0 and 1 are always valid.
    let (l0, l1) = unsafe { (__cpuid(0), __cpuid(1)) };
    let mut vendor = [0u8; 12];
    vendor[..4].copy_from_slice(&l0.ebx.to_le_bytes());
    vendor[4..8].copy_from_slice(&l0.edx.to_le_bytes());
    vendor[8..].copy_from_slice(&l0.ecx.to_le_bytes());
    let base = (l1.eax >> 8) & 0xF;
    let family = if base == 0xF {
        base + ((l1.eax >> 20) & 0xFF)
    } else {
        base
    };
    matches!(&vendor, b"AuthenticAMD" | b"HygonGenuine") && family < 0x19
}

/// Not an x86-64 build host: no `pext` to judge.
#[cfg(not(target_arch = "x86_64"))]
fn host_pext_is_slow() -> bool {
    false
}
