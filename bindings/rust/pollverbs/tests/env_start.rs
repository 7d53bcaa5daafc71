// SPDX-License-Identifier: BSD-3-Clause
//! The runtime starts from PV_EAL_ARGS at the first devices() call, so a
//! program written for the ibverbs crate needs no new line; without it,
//! devices() says how to start it.

use pollverbs::Error;

mod common;

fn main() {
    let cases: Vec<common::Case<'_>> = vec![(
        "env_start",
        Box::new(|| {
            std::env::remove_var("PV_EAL_ARGS");
            let e = pollverbs::devices().unwrap_err();
            assert!(matches!(e, Error::NotStarted));
            assert!(e.to_string().contains("PV_EAL_ARGS"), "{}", e);
            assert!(!pollverbs::is_started());
            let args = common::ring_args("env");
            std::env::set_var("PV_EAL_ARGS", args[1..].join(" "));
            {
                let list = pollverbs::devices().expect("devices() from PV_EAL_ARGS");
                assert!(pollverbs::is_started());
                assert_eq!(list.len(), 1);
                let ctx = list.get(0).unwrap().open().unwrap();
                assert_eq!(ctx.gid_index(), 1);
                // a second devices() does not start it again
                assert_eq!(pollverbs::devices().unwrap().len(), 1);
                assert!(matches!(pollverbs::init(&args), Err(Error::AlreadyStarted)));
            }
            pollverbs::cleanup().unwrap();
            common::remove_runtime_dir(&common::prefix("env"));
            assert!(!pollverbs::is_started());
            // EAL starts once per process: no restart after cleanup
            assert!(matches!(pollverbs::devices(), Err(Error::NotStarted)));
            assert!(matches!(pollverbs::cleanup(), Err(Error::NotStarted)));
        }),
    )];
    std::process::exit((common::run("env_start", &cases) != 0) as i32);
}
