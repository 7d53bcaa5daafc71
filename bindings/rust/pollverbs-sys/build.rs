// SPDX-License-Identifier: BSD-3-Clause
//! Generates the raw bindings of pv_verbs.h (with pv_verbs_ex.h), pv_rtc.h
//! and pv_rdma_cma.h with bindgen, and tells cargo where libpollverbs.so is.
//!
//! Where the headers and the library come from, in this order:
//! 1. `PV_BUILD_DIR`: a meson build directory of pollverbs. Its
//!    `meson-uninstalled/pollverbs-uninstalled.pc` names the source tree
//!    (pkg-config variable `srcdir`), whose `lib/verbs`, `lib/rtc` and
//!    `lib/cm` hold the headers; the library is `libpollverbs.so` in the
//!    build directory. Relative paths are taken from the repository root.
//! 2. Else the repository's own `build` directory, when it holds
//!    `libpollverbs.so` (a `make build` was run).
//! 3. Else an installed pollverbs: `pkg-config --cflags --libs pollverbs`
//!    (`make install`, or `PKG_CONFIG_PATH` naming its `pollverbs.pc`).
//!
//! The library's directory is exported to dependent crates as the
//! `DEP_POLLVERBS_LIBDIR` metadata (this package `links = "pollverbs"`), so
//! that their tests and examples get an rpath to it.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs pkg-config with `args`, `pc_dir` first on its search path.
fn pkg_config(pc_dir: Option<&Path>, args: &[&str]) -> Result<String, String> {
    let mut cmd = Command::new("pkg-config");
    if let Some(dir) = pc_dir {
        let mut path = dir.as_os_str().to_owned();
        if let Some(old) = env::var_os("PKG_CONFIG_PATH") {
            path.push(":");
            path.push(old);
        }
        cmd.env("PKG_CONFIG_PATH", path);
    }
    let out = cmd
        .args(args)
        .output()
        .map_err(|e| format!("cannot run pkg-config (Debian package pkg-config): {}", e))?;
    if !out.status.success() {
        return Err(format!(
            "pkg-config {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

struct Found {
    include_dirs: Vec<PathBuf>,
    lib_dir: PathBuf,
}

/// Headers and library of the meson build directory `build`.
fn from_build_dir(build: &Path) -> Result<Found, String> {
    let pc_dir = build.join("meson-uninstalled");
    if !pc_dir.join("pollverbs-uninstalled.pc").exists() {
        return Err(format!(
            "{}: not a configured pollverbs build directory (no \
             meson-uninstalled/pollverbs-uninstalled.pc; run `make build`)",
            build.display()
        ));
    }
    let src = pkg_config(Some(&pc_dir), &["--variable=srcdir", "pollverbs"])?;
    if src.is_empty() {
        return Err(format!("{}: pollverbs-uninstalled.pc names no srcdir", pc_dir.display()));
    }
    let src = PathBuf::from(src);
    if !build.join("libpollverbs.so").exists() {
        return Err(format!(
            "{}: no libpollverbs.so (run `make build` or `ninja -C {}`)",
            build.display(),
            build.display()
        ));
    }
    Ok(Found {
        include_dirs: vec![src.join("lib/verbs"), src.join("lib/rtc"), src.join("lib/cm")],
        lib_dir: build.to_path_buf(),
    })
}

/// Headers and library of an installed pollverbs (pollverbs.pc).
fn from_installed() -> Result<Found, String> {
    let cflags = pkg_config(None, &["--cflags-only-I", "pollverbs"])?;
    let libs = pkg_config(None, &["--libs-only-L", "pollverbs"])?;
    let include_dirs = cflags
        .split_whitespace()
        .filter_map(|f| f.strip_prefix("-I"))
        .map(PathBuf::from)
        .collect();
    let lib_dir = libs
        .split_whitespace()
        .filter_map(|f| f.strip_prefix("-L"))
        .map(PathBuf::from)
        .next()
        .unwrap_or_else(|| PathBuf::from("/usr/local/lib"));
    Ok(Found { include_dirs, lib_dir })
}

fn find() -> Result<Found, String> {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    // bindings/rust/pollverbs-sys -> the repository root
    let repo = manifest.join("../../..");
    if let Some(dir) = env::var_os("PV_BUILD_DIR") {
        let dir = repo.join(dir);
        return from_build_dir(&dir).map_err(|e| format!("PV_BUILD_DIR: {}", e));
    }
    let default = repo.join("build");
    if default.join("libpollverbs.so").exists() {
        return from_build_dir(&default);
    }
    from_installed().map_err(|e| {
        format!(
            "no pollverbs found: no PV_BUILD_DIR, no {}/libpollverbs.so, and {}",
            default.display(),
            e
        )
    })
}

fn main() {
    println!("cargo:rerun-if-env-changed=PV_BUILD_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-changed=wrapper.h");
    let found = match find() {
        Ok(f) => f,
        Err(e) => {
            eprintln!("pollverbs-sys: {}", e);
            std::process::exit(1);
        }
    };
    let lib_dir = found.lib_dir.canonicalize().unwrap_or(found.lib_dir);
    for dir in &found.include_dirs {
        for h in &["pv_verbs.h", "pv_verbs_ex.h", "pv_rtc.h", "pv_rdma_cma.h"] {
            let p = dir.join(h);
            if p.exists() {
                println!("cargo:rerun-if-changed={}", p.display());
            }
        }
    }
    println!("cargo:rerun-if-changed={}", lib_dir.join("libpollverbs.so").display());
    println!("cargo:rustc-link-search=native={}", lib_dir.display());
    println!("cargo:rustc-link-lib=dylib=pollverbs");
    // for this package's own tests; dependents read DEP_POLLVERBS_LIBDIR
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib_dir.display());
    println!("cargo:libdir={}", lib_dir.display());
    // for the test inline_complete: where the bound headers are
    let dirs: Vec<String> = found.include_dirs.iter().map(|d| d.display().to_string()).collect();
    println!("cargo:rustc-env=PV_SYS_INCLUDE_DIRS={}", dirs.join(":"));

    let mut b = bindgen::Builder::default()
        .header("wrapper.h")
        .rustfmt_bindings(false)
        .allowlist_function("pv_.*")
        .allowlist_type("pv_.*")
        .allowlist_var("PV_.*")
        // flag sets: bit operations on a newtype
        .bitfield_enum("pv_access_flags")
        .bitfield_enum("pv_qp_attr_mask")
        .bitfield_enum("pv_send_flags")
        .bitfield_enum("pv_wc_flags")
        .bitfield_enum("pv_port_cap_flags")
        .bitfield_enum("pv_device_cap_flags")
        .bitfield_enum("pv_srq_attr_mask")
        // other enums: a module of constants (the ibverbs crate's shape)
        .default_enum_style(bindgen::EnumVariation::ModuleConsts)
        .size_t_is_usize(true)
        .derive_default(true)
        .derive_debug(true)
        .prepend_enum_name(false)
        .layout_tests(true);
    for dir in &found.include_dirs {
        b = b.clang_arg(format!("-I{}", dir.display()));
    }
    let bindings = match b.generate() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("pollverbs-sys: bindgen failed on wrapper.h (needs libclang-dev): {}", e);
            std::process::exit(1);
        }
    };
    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("bindings.rs");
    bindings.write_to_file(&out).expect("write bindings.rs");
}
