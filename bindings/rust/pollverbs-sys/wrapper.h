/* SPDX-License-Identifier: BSD-3-Clause
 * The headers pollverbs-sys binds (build.rs runs bindgen on this file).
 */
#include <pv_verbs.h>
#include <pv_rtc.h>
#include <pv_rdma_cma.h>
