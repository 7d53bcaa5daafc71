/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/**
 * @file
 * softroce driver extras for in-tree tools and tests: per-port counters and
 * deterministic fault injection. Not part of the verbs API; the symbols are
 * hidden in libpollverbs.so and reachable from in-tree (static) users only.
 */

#ifndef PV_DRIVERS_SOFTROCE_PV_SROCE_H
#define PV_DRIVERS_SOFTROCE_PV_SROCE_H

#include <stdint.h>

#include "pv_verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Per-port counters of a softroce device (frames unless said otherwise). */
struct pv_sroce_stats {
	uint64_t rx_pkts;		/**< RoCEv2 frames received and accepted */
	uint64_t tx_pkts;		/**< frames handed to the PMD */
	uint64_t rx_drop_icrc;		/**< dropped: bad ICRC */
	uint64_t rx_drop_hdr;		/**< dropped: malformed header */
	uint64_t rx_drop_qpn;		/**< dropped: unknown destination QPN */
	uint64_t rx_drop_state;		/**< dropped: QP state does not accept it */
	uint64_t rx_drop_other;		/**< dropped: not RoCEv2/ARP, not for us, multi-segment */
	uint64_t rx_drop_fault;		/**< dropped by fault injection (RX) */
	uint64_t tx_drop_fault;		/**< dropped by fault injection (TX) */
	uint64_t tx_nombuf;		/**< mbuf allocation failures */
	uint64_t arp_rx;		/**< ARP frames received */
	uint64_t arp_tx;		/**< ARP requests and replies sent */
	uint64_t retransmits;		/**< go-back-N restarts (timeout, NAK, RNR) */
	uint64_t timeouts;		/**< local ACK timeouts */
	uint64_t seq_naks_tx;		/**< PSN sequence error NAKs sent */
	uint64_t seq_naks_rx;
	uint64_t rnr_naks_tx;
	uint64_t rnr_naks_rx;
	uint64_t err_naks_tx;		/**< invalid request / access / operational NAKs sent */
	uint64_t err_naks_rx;
	uint64_t dup_reqs;		/**< duplicate requests received (re-ACKed or replayed) */
	uint64_t acks_tx;		/**< ACKs sent (NAKs: seq_, rnr_, err_naks_tx) */
	/**
	 * UC request packets dropped by the responder: after a PSN gap or an
	 * opcode out of sequence until the next FIRST/ONLY, and the packets of
	 * a message with no receive WQE, no CQ space, a failed rkey check or a
	 * wrong length (IBTA 9.8.3: a UC responder drops silently).
	 */
	uint64_t uc_drops;
	/** UD packets dropped: Q_Key mismatch (also query_port's qkey_viol_cntr) */
	uint64_t ud_qkey_drops;
	/** UD packets dropped: no receive WQE or no CQ space (UD has no RNR) */
	uint64_t ud_drops;
	/**
	 * UD sends longer than the path MTU: completed successfully, nothing
	 * transmitted (IBTA C10-93.1.1, as rxe)
	 */
	uint64_t ud_oversize;
	/**
	 * NAKs ignored as ghosts: for a PSN before every outstanding request
	 * (acknowledged long ago) or with nothing outstanding
	 */
	uint64_t stale_naks_rx;
	uint64_t tx_fault_dup;		/**< fault injection: frames sent twice (a copy) */
	uint64_t rx_fault_dup;		/**< fault injection: frames processed twice */
	uint64_t tx_fault_corrupt;	/**< fault injection: one bit flipped before sending */
	uint64_t rx_fault_corrupt;	/**< fault injection: one bit flipped before the ICRC check */
	uint64_t tx_fault_held;		/**< fault injection: held back (reorder, delay) */
	uint64_t rx_fault_held;
	uint64_t fault_hold_full;	/**< not held: the hold queue of the direction was full */
	uint64_t neigh_queued;		/**< frames queued for a neighbour being resolved */
	uint64_t neigh_drops;		/**< frames dropped: neighbour queue full or resolution failed */
	uint64_t neigh_resolved;	/**< resolutions answered (and senders learned) */
	uint64_t neigh_failed;		/**< resolutions that got no answer in arp_timeout_ms */
	uint64_t neigh_pending;		/**< gauge: resolutions in progress now (INCOMPLETE) */
	uint64_t ndp_rx;		/**< ICMPv6 neighbour solicitations and advertisements received */
	uint64_t ndp_tx;		/**< neighbour solicitations and advertisements sent */
	uint64_t lo_pkts;		/**< frames to our own addresses, received without the port */
	uint64_t lo_drops;		/**< loopback frames dropped: the loopback ring was full */
	uint64_t rx_drop_vlan;		/**< dropped: VLAN ID other than vlan= (untagged, vlan>0) */
	/** BIND_MW / LOCAL_INV work requests that failed (the QP went to ERR) */
	uint64_t local_op_errors;
	/** SEND_WITH_INV received whose rkey could not be invalidated (NAKed) */
	uint64_t inv_errors;
	/** XRC requests naming no XRC SRQ of the TGT QP's domain (NAKed) */
	uint64_t xrc_srq_drops;
	/** dropped: to QP 1 while the device has no GSI QP (create_gsi_qp) */
	uint64_t rx_drop_gsi;
	/**
	 * dropped: to the GSI QP with a P_Key that does not match the default
	 * partition 0xffff (also query_port's bad_pkey_cntr)
	 */
	uint64_t rx_drop_pkey;
	/** frames received by one engine for a QP of another (queues=N), handed over */
	uint64_t rx_steered;
	/** dropped: the steering ring of the QP's engine was full */
	uint64_t rx_drop_steer;
};

/** Frames held back by fault injection at most, per direction and device. */
#define PV_SROCE_FAULT_HOLD 256

/**
 * Random faults of one direction (TX: before the PMD, RX: before the parser
 * and its ICRC check), each a fraction of the RoCEv2 frames in parts per
 * million (1000000: every frame), decided per frame in this order: drop,
 * corrupt, duplicate, hold (reorder or delay). Held frames are the mbufs
 * themselves (a duplicate is an mbuf copy from the device's pool), kept in a
 * queue of PV_SROCE_FAULT_HOLD entries and released by the progress of the
 * device once due; with the queue full a frame passes unheld (counted).
 */
struct pv_sroce_fault_dir {
	uint32_t drop_ppm;	/**< dropped */
	uint32_t corrupt_ppm;	/**< one bit flipped from the BTH to the ICRC (ICRC-covered) */
	uint32_t dup_ppm;	/**< a copy follows the frame (after the frames of this pass) */
	uint32_t reorder_ppm;	/**< held reorder_us: later frames overtake it */
	uint32_t reorder_us;
	uint32_t delay_ppm;	/**< held delay_us; 0 with delay_us != 0: every frame */
	uint32_t delay_us;
};

/**
 * Fault injection, applied to RoCEv2 frames only (ARP is never touched).
 * Counters start at the call of pv_sroce_fault_set(). A zero field
 * disables that fault. Every random decision comes from generators seeded
 * with @p seed (one per direction): a run that sees the same frames in the
 * same order takes the same decisions.
 */
struct pv_sroce_fault {
	uint32_t drop_tx_every;		/**< drop every Nth transmitted frame */
	uint32_t drop_rx_every;		/**< drop every Nth received frame */
	uint32_t dup_rx_every;		/**< process every Nth received frame twice */
	uint32_t drop_tx_all;		/**< nonzero: drop every transmitted frame (dead link) */
	uint32_t drop_rx_all;		/**< nonzero: drop every received frame */
	/**
	 * Drop each transmitted frame with probability 1/N, from a fixed-seed
	 * generator (same sequence every run). Periodic drops (drop_tx_every)
	 * can lock into go-back-N's retransmission period and drop the same
	 * PSN forever; this does not.
	 */
	uint32_t drop_tx_one_in;
	uint32_t drop_rx_one_in;	/**< same for received frames */
	uint32_t seed;			/**< seed of the tx/rx generators (0 is a seed too) */
	struct pv_sroce_fault_dir tx;	/**< random faults of transmitted frames */
	struct pv_sroce_fault_dir rx;	/**< random faults of received frames */
};

/**
 * Read the counters of the softroce device of @p context.
 * @return 0, -EINVAL NULL argument or not a softroce context.
 * Thread: the owner of the device's queues (counters are not atomic).
 */
int pv_sroce_stats_get(struct pv_context *context, struct pv_sroce_stats *stats);

/**
 * Set (replace) the fault injection of the device of @p context and reset
 * its counters and generators; devargs drop_tx_every, drop_rx_every,
 * dup_rx_every, drop_tx_one_in, drop_rx_one_in, seed and tx_<field>,
 * rx_<field> (a field of struct pv_sroce_fault_dir: tx_reorder_ppm ...) set
 * the same fields at probe. Frames held under the previous settings are
 * released at the next progress.
 * @return 0, -EINVAL NULL argument or not a softroce context.
 * Thread: the owner of the device's queues.
 */
int pv_sroce_fault_set(struct pv_context *context, const struct pv_sroce_fault *fault);

#ifdef __cplusplus
}
#endif

#endif /* PV_DRIVERS_SOFTROCE_PV_SROCE_H */
