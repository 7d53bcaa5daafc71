// SPDX-License-Identifier: BSD-3-Clause
//! Queue pairs: the builder, the handshake, posting work requests.

use std::marker::PhantomData;
use std::ops::RangeBounds;
use std::sync::Arc;

use crate::cq::{CompletionQueue, Cq};
use crate::device::{Context, Gid};
use crate::error::{check, destroyed, Error, Result};
use crate::ffi;
use crate::names::{ibv_access_flags, ibv_qp_type, ibv_send_flags};
use crate::pd::{AddressHandle, MemoryRegion, Pd, ProtectionDomain, RemoteMemory, Sge, SharedReceiveQueue, Srq};

/// The Q_Key UD QPs use unless [`QueuePairBuilder::set_qkey`] says otherwise
/// (the value `ibv_ud_pingpong` and pollverbs' apps use).
pub const DEFAULT_QKEY: u32 = 0x1111_1111;

/// The C QP and everything it uses; destroyed when the last handle goes.
#[derive(Debug)]
pub(crate) struct Qp {
    pub(crate) qp: *mut ffi::pv_qp,
    // declared after qp: dropped after the QP is destroyed
    /// the connection manager's id of a QP it created (destroyed with it)
    pub(crate) cm: Option<crate::cm::CmId>,
    _send: Arc<Cq>,
    _recv: Arc<Cq>,
    _srq: Option<Arc<Srq>>,
    _pd: Arc<Pd>,
}

// pv_verbs.h: any thread, any object, in the default thread-safe mode.
unsafe impl Send for Qp {}
unsafe impl Sync for Qp {}

impl Drop for Qp {
    fn drop(&mut self) {
        if let Some(id) = &self.cm {
            // rdma_destroy_qp(3); the id goes with the field right after
            unsafe { ffi::pv_rdma_destroy_qp(id.0) };
            return;
        }
        destroyed("pv_destroy_qp", unsafe { ffi::pv_destroy_qp(self.qp) });
    }
}

/// Builds a queue pair (`ibv_create_qp(3)`), then carries the connection
/// attributes to the handshake.
#[derive(Debug, Clone)]
pub struct QueuePairBuilder<'res> {
    ctx: Context,
    pd: Arc<Pd>,
    send: Arc<Cq>,
    recv: Arc<Cq>,
    srq: Option<Arc<Srq>>,
    qp_type: ibv_qp_type::Type,
    id: isize,
    cap: ffi::pv_qp_cap,
    sq_sig_all: bool,
    access: ibv_access_flags,
    timeout: u8,
    retry_count: u8,
    rnr_retry: u8,
    min_rnr_timer: u8,
    max_rd_atomic: u8,
    max_dest_rd_atomic: u8,
    path_mtu: Option<ffi::pv_mtu::Type>,
    gid_index: Option<u8>,
    hop_limit: u8,
    traffic_class: u8,
    flow_label: u32,
    service_level: u8,
    psn: u32,
    qkey: u32,
    _res: PhantomData<&'res ()>,
}

/// `pub fn $name(&mut self, v) -> &mut Self` setting `self.$field`.
macro_rules! setters {
    ($($(#[$m:meta])* $name:ident($arg:ident: $ty:ty) => $($field:ident).+;)*) => {
        $(
            $(#[$m])*
            pub fn $name(&mut self, $arg: $ty) -> &mut Self {
                self.$($field).+ = $arg;
                self
            }
        )*
    };
}

impl<'res> QueuePairBuilder<'res> {
    pub(crate) fn new(
        pd: &ProtectionDomain<'_>,
        send: &CompletionQueue<'_>,
        recv: &CompletionQueue<'_>,
        qp_type: ibv_qp_type::Type,
    ) -> QueuePairBuilder<'res> {
        QueuePairBuilder {
            ctx: pd.ctx.clone(),
            pd: pd.inner.clone(),
            send: send.inner.clone(),
            recv: recv.inner.clone(),
            srq: None,
            qp_type,
            id: 0,
            cap: ffi::pv_qp_cap {
                max_send_wr: 1,
                max_recv_wr: 1,
                max_send_sge: 1,
                max_recv_sge: 1,
                max_inline_data: 0,
            },
            sq_sig_all: false,
            access: ibv_access_flags::IBV_ACCESS_LOCAL_WRITE,
            timeout: 4,
            retry_count: 6,
            rnr_retry: 6,
            min_rnr_timer: 16,
            max_rd_atomic: 1,
            max_dest_rd_atomic: 1,
            path_mtu: None,
            gid_index: None,
            hop_limit: 0xff,
            traffic_class: 0,
            flow_label: 0,
            service_level: 0,
            psn: 0,
            qkey: DEFAULT_QKEY,
            _res: PhantomData,
        }
    }

    /// Remote access the QP allows (RC, UC): default local write only.
    pub fn set_access(&mut self, access: ibv_access_flags) -> &mut Self {
        self.access = access;
        self
    }

    /// Allow remote RDMA WRITE and READ.
    pub fn allow_remote_rw(&mut self) -> &mut Self {
        self.access = self.access
            | ibv_access_flags::IBV_ACCESS_REMOTE_WRITE
            | ibv_access_flags::IBV_ACCESS_REMOTE_READ;
        self
    }

    setters! {
        /// Minimum RNR NAK timer (RC; encoded as IBTA 9.7.5.2.8): default 16.
        set_min_rnr_timer(timer: u8) => min_rnr_timer;
        /// Local ACK timeout exponent: 4.096 µs × 2^timeout (RC): default 4
        /// (softroce waits at least 1 ms).
        set_timeout(timeout: u8) => timeout;
        /// Retransmissions before an error (RC, 0..=7): default 6. Larger
        /// values are rejected by [`handshake`](PreparedQueuePair::handshake)
        /// (EINVAL), not by a panic.
        set_retry_count(count: u8) => retry_count;
        /// RNR retries (RC, 0..=7, 7 infinite): default 6.
        set_rnr_retry(n: u8) => rnr_retry;
        /// The `qp_context` value.
        set_context(ctx: isize) => id;
        /// Send queue size in WRs: default 1 (pollverbs addition).
        set_max_send_wr(n: u32) => cap.max_send_wr;
        /// Receive queue size in WRs: default 1 (pollverbs addition).
        set_max_recv_wr(n: u32) => cap.max_recv_wr;
        /// SGEs per send WR: default 1 (pollverbs addition).
        set_max_send_sge(n: u32) => cap.max_send_sge;
        /// SGEs per receive WR: default 1 (pollverbs addition).
        set_max_recv_sge(n: u32) => cap.max_recv_sge;
        /// Largest inline payload in bytes: default 0 (pollverbs addition).
        set_max_inline_data(n: u32) => cap.max_inline_data;
    }

    /// Signal every send WR, whatever its flags (`sq_sig_all`).
    pub fn set_sq_sig_all(&mut self, all: bool) -> &mut Self {
        self.sq_sig_all = all;
        self
    }

    /// Take receive WRs from `srq` (RC, UD; pollverbs addition).
    pub fn set_srq(&mut self, srq: &SharedReceiveQueue<'_>) -> &mut Self {
        self.srq = Some(srq.inner.clone());
        self
    }

    setters! {
        /// Outstanding RDMA READs/atomics this QP issues (RC): default 1.
        set_max_rd_atomic(n: u8) => max_rd_atomic;
        /// Outstanding RDMA READs/atomics this QP answers (RC): default 1.
        set_max_dest_rd_atomic(n: u8) => max_dest_rd_atomic;
        /// GRH hop limit: default 255.
        set_hop_limit(hop_limit: u8) => hop_limit;
        /// GRH traffic class (DSCP and ECN bits): default 0.
        set_traffic_class(tc: u8) => traffic_class;
        /// GRH flow label (20 bits): default 0.
        set_flow_label(fl: u32) => flow_label;
        /// Service level: default 0.
        set_service_level(sl: u8) => service_level;
        /// First packet sequence number of both directions: default 0.
        set_psn(psn: u32) => psn;
        /// Q_Key of a UD QP: default [`DEFAULT_QKEY`].
        set_qkey(qkey: u32) => qkey;
    }

    /// Path MTU (`ibv_mtu` value): default the port's active MTU.
    pub fn set_path_mtu(&mut self, mtu: ffi::pv_mtu::Type) -> &mut Self {
        self.path_mtu = Some(mtu);
        self
    }

    /// Source GID index: default the context's ([`Context::gid_index`]).
    pub fn set_gid_index(&mut self, index: u8) -> &mut Self {
        self.gid_index = Some(index);
        self
    }

    /// Create the QP (`ibv_create_qp(3)`), in RESET.
    ///
    /// # Errors
    /// [`Error::Verbs`] `pv_create_qp`: EINVAL sizes beyond the device's
    /// (`query_device`), an SRQ with a type other than RC or UD; ENOMEM;
    /// EOPNOTSUPP a QP type the driver lacks.
    pub fn build(&self) -> Result<PreparedQueuePair<'res>> {
        let mut ia = self.init_attr();
        let qp = unsafe { ffi::pv_create_qp(self.pd.pd, &mut ia) };
        if qp.is_null() {
            return Err(Error::last("pv_create_qp"));
        }
        Ok(PreparedQueuePair { qp: Arc::new(self.wrap(qp, None)), b: self.clone() })
    }

    pub(crate) fn init_attr(&self) -> ffi::pv_qp_init_attr {
        ffi::pv_qp_init_attr {
            qp_context: self.id as *mut std::os::raw::c_void,
            send_cq: self.send.cq,
            recv_cq: self.recv.cq,
            srq: self.srq.as_ref().map(|s| s.srq).unwrap_or(std::ptr::null_mut()),
            cap: self.cap,
            qp_type: self.qp_type,
            sq_sig_all: self.sq_sig_all as i32,
        }
    }

    pub(crate) fn wrap(&self, qp: *mut ffi::pv_qp, cm: Option<crate::cm::CmId>) -> Qp {
        Qp {
            qp,
            cm,
            _send: self.send.clone(),
            _recv: self.recv.clone(),
            _srq: self.srq.clone(),
            _pd: self.pd.clone(),
        }
    }

    /// The connection parameters of the CM (`rdma_conn_param`) from the
    /// builder's RD atomic depths and retry counts.
    pub(crate) fn conn_param(&self) -> ffi::pv_rdma_conn_param {
        let mut p = ffi::pv_rdma_conn_param::default();
        p.responder_resources = self.max_dest_rd_atomic;
        p.initiator_depth = self.max_rd_atomic;
        p.retry_count = self.retry_count;
        p.rnr_retry_count = self.rnr_retry;
        p
    }

    pub(crate) fn pd_raw(&self) -> *mut ffi::pv_pd {
        self.pd.pd
    }
}

/// What a peer needs to connect to a QP: its number, LID and GID.
/// Serializable with serde (feature `serde`, on by default).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct QueuePairEndpoint {
    /// QP number.
    pub num: u32,
    /// LID (0 on RoCE).
    pub lid: u16,
    /// GID (the context's, or the builder's GID index).
    pub gid: Gid,
}

/// A QP created but not connected: exchange [`endpoint`](Self::endpoint)s
/// with the peer, then [`handshake`](Self::handshake). Dropping it
/// destroys the QP (no abort, unlike `ibverbs` 0.4's issue #14).
#[derive(Debug)]
pub struct PreparedQueuePair<'res> {
    qp: Arc<Qp>,
    b: QueuePairBuilder<'res>,
}

impl<'res> PreparedQueuePair<'res> {
    fn gid_index(&self) -> u8 {
        self.b.gid_index.unwrap_or_else(|| self.b.ctx.gid_index())
    }

    /// This QP's endpoint, to send to the peer.
    pub fn endpoint(&self) -> QueuePairEndpoint {
        let idx = self.gid_index();
        let gid = if idx == self.b.ctx.gid_index() {
            self.b.ctx.gid()
        } else {
            // a bad index shows at handshake (EINVAL); the endpoint stays plain
            self.b.ctx.query_gid(self.b.ctx.port(), idx).unwrap_or_default()
        };
        QueuePairEndpoint { num: unsafe { (*self.qp.qp).qp_num }, lid: self.b.ctx.inner.lid, gid }
    }

    fn modify(&self, attr: &mut ffi::pv_qp_attr, mask: ffi::pv_qp_attr_mask) -> Result<()> {
        check("pv_modify_qp", unsafe { ffi::pv_modify_qp(self.qp.qp, attr, mask.0 as i32) })
    }

    fn to_init(&self) -> Result<()> {
        use ffi::pv_qp_attr_mask as M;
        let mut a = ffi::pv_qp_attr::default();
        a.qp_state = ffi::pv_qp_state::PV_QPS_INIT;
        a.pkey_index = 0;
        a.port_num = self.b.ctx.port();
        let mut mask = M::PV_QP_STATE | M::PV_QP_PKEY_INDEX | M::PV_QP_PORT;
        if self.b.qp_type == ibv_qp_type::IBV_QPT_UD {
            a.qkey = self.b.qkey;
            mask |= M::PV_QP_QKEY;
        } else {
            a.qp_access_flags = self.b.access.0;
            mask |= M::PV_QP_ACCESS_FLAGS;
        }
        self.modify(&mut a, mask)
    }

    /// Connect to `remote` (RC, UC): RESET → INIT → RTR → RTS
    /// (`ibv_modify_qp(3)` with the attributes IBTA table 91 requires for
    /// the type). A UD QP ignores `remote` and is activated as by
    /// [`activate_ud`](Self::activate_ud). On error the QP is destroyed.
    ///
    /// # Errors
    /// [`Error::Verbs`] `pv_modify_qp`: EINVAL an attribute out of range
    /// (path MTU above the port's, retry count > 7, a dgid of the other IP
    /// family than the GID index), ...
    pub fn handshake(self, remote: QueuePairEndpoint) -> Result<QueuePair<'res>> {
        use ffi::pv_qp_attr_mask as M;
        if self.b.qp_type == ibv_qp_type::IBV_QPT_UD {
            return self.activate_ud();
        }
        let rc = self.b.qp_type == ibv_qp_type::IBV_QPT_RC;
        self.to_init()?;

        let mut a = ffi::pv_qp_attr::default();
        a.qp_state = ffi::pv_qp_state::PV_QPS_RTR;
        a.path_mtu = self.b.path_mtu.unwrap_or(self.b.ctx.inner.active_mtu);
        a.dest_qp_num = remote.num;
        a.rq_psn = self.b.psn;
        a.ah_attr.dlid = remote.lid;
        a.ah_attr.sl = self.b.service_level;
        a.ah_attr.port_num = self.b.ctx.port();
        a.ah_attr.is_global = 1;
        a.ah_attr.grh.dgid = remote.gid.into();
        a.ah_attr.grh.sgid_index = self.gid_index();
        a.ah_attr.grh.hop_limit = self.b.hop_limit;
        a.ah_attr.grh.traffic_class = self.b.traffic_class;
        a.ah_attr.grh.flow_label = self.b.flow_label;
        let mut mask =
            M::PV_QP_STATE | M::PV_QP_AV | M::PV_QP_PATH_MTU | M::PV_QP_DEST_QPN | M::PV_QP_RQ_PSN;
        if rc {
            a.max_dest_rd_atomic = self.b.max_dest_rd_atomic;
            a.min_rnr_timer = self.b.min_rnr_timer;
            mask |= M::PV_QP_MAX_DEST_RD_ATOMIC | M::PV_QP_MIN_RNR_TIMER;
        }
        self.modify(&mut a, mask)?;

        let mut a = ffi::pv_qp_attr::default();
        a.qp_state = ffi::pv_qp_state::PV_QPS_RTS;
        a.sq_psn = self.b.psn;
        let mut mask = M::PV_QP_STATE | M::PV_QP_SQ_PSN;
        if rc {
            a.timeout = self.b.timeout;
            a.retry_cnt = self.b.retry_count;
            a.rnr_retry = self.b.rnr_retry;
            a.max_rd_atomic = self.b.max_rd_atomic;
            mask |= M::PV_QP_TIMEOUT
                | M::PV_QP_RETRY_CNT
                | M::PV_QP_RNR_RETRY
                | M::PV_QP_MAX_QP_RD_ATOMIC;
        }
        self.modify(&mut a, mask)?;
        Ok(QueuePair { qp: self.qp, _res: PhantomData })
    }

    /// Activate a UD QP: RESET → INIT (Q_Key, port) → RTR → RTS (pollverbs
    /// addition). Its peers come with each send's address handle.
    /// # Errors
    /// [`Error::InvalidArgument`] not a UD QP; [`Error::Verbs`] `pv_modify_qp`.
    pub fn activate_ud(self) -> Result<QueuePair<'res>> {
        use ffi::pv_qp_attr_mask as M;
        if self.b.qp_type != ibv_qp_type::IBV_QPT_UD {
            return Err(Error::InvalidArgument("activate_ud on a QP that is not UD".into()));
        }
        self.to_init()?;
        let mut a = ffi::pv_qp_attr::default();
        a.qp_state = ffi::pv_qp_state::PV_QPS_RTR;
        self.modify(&mut a, M::PV_QP_STATE)?;
        let mut a = ffi::pv_qp_attr::default();
        a.qp_state = ffi::pv_qp_state::PV_QPS_RTS;
        a.sq_psn = self.b.psn;
        self.modify(&mut a, M::PV_QP_STATE | M::PV_QP_SQ_PSN)?;
        Ok(QueuePair { qp: self.qp, _res: PhantomData })
    }

    /// The raw QP (pollverbs addition).
    pub fn as_raw(&self) -> *mut ffi::pv_qp {
        self.qp.qp
    }
}

/// A connected (or activated UD) queue pair (`ibv_qp`).
///
/// It keeps its PD, CQs and SRQ alive. Memory it is told to send or
/// receive into must stay alive until the work request completes: the
/// compiler cannot see that, so posting is `unsafe`.
#[derive(Debug)]
pub struct QueuePair<'res> {
    qp: Arc<Qp>,
    _res: PhantomData<&'res ()>,
}

impl<'res> QueuePair<'res> {
    pub(crate) fn from_qp(qp: Qp) -> QueuePair<'res> {
        QueuePair { qp: Arc::new(qp), _res: PhantomData }
    }

    /// The CM id of a QP the connection manager created, else NULL.
    pub(crate) fn cm_id(&self) -> *mut ffi::pv_rdma_cm_id {
        self.qp.cm.as_ref().map(|c| c.0).unwrap_or(std::ptr::null_mut())
    }

    /// Post a signaled SEND of elements `range` of `mr` (`ibv_post_send(3)`).
    ///
    /// # Safety
    /// `mr` must stay alive and unchanged until the send completes.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] a range beyond `mr`; [`Error::Verbs`]
    /// `pv_post_send`: ENOMEM the send queue is full, EINVAL.
    #[inline]
    pub unsafe fn post_send<T, R: RangeBounds<usize>>(
        &mut self,
        mr: &mut MemoryRegion<T>,
        range: R,
        wr_id: u64,
    ) -> Result<()> {
        let sge = [mr.sge(range)?];
        self.post(&[WorkRequest::send(wr_id, &sge)])
    }

    /// Post a receive into elements `range` of `mr` (`ibv_post_recv(3)`);
    /// on a UD QP the first 40 bytes receive the GRH.
    ///
    /// # Safety
    /// `mr` must stay alive and unread until the receive completes.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] a range beyond `mr`; [`Error::Verbs`]
    /// `pv_post_recv`: ENOMEM the receive queue is full, EINVAL the QP uses
    /// an SRQ.
    #[inline]
    pub unsafe fn post_receive<T, R: RangeBounds<usize>>(
        &mut self,
        mr: &mut MemoryRegion<T>,
        range: R,
        wr_id: u64,
    ) -> Result<()> {
        let sge = [mr.sge(range)?];
        self.post_recv(&[RecvRequest { wr_id, sges: &sge }])
    }

    /// Post a list of send work requests with one `pv_post_send()` (one
    /// doorbell; pollverbs addition): SEND, WRITE and READ with or without
    /// immediate data, atomics, inline data, several SGEs, fence and
    /// solicited flags, UD destinations.
    ///
    /// # Safety
    /// The local memory of every non-inline SGE must stay registered and
    /// unchanged (for READ: unread) until its WR completes; the address
    /// handles must live as long.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] an empty list, a WR beyond its remote
    /// memory, an atomic without one 8-byte SGE; [`Error::Verbs`]
    /// `pv_post_send` (the first WR not posted is lost with it: those before
    /// it were posted): ENOMEM send queue full, EINVAL too many SGEs, inline
    /// data too long, an opcode the QP type lacks.
    pub unsafe fn post(&mut self, wrs: &[WorkRequest<'_>]) -> Result<()> {
        if wrs.is_empty() {
            return Err(Error::InvalidArgument("an empty work request list".into()));
        }
        let mut raw: Vec<ffi::pv_send_wr> = Vec::with_capacity(wrs.len());
        for w in wrs {
            raw.push(w.to_raw()?);
        }
        let base = raw.as_mut_ptr();
        for i in 1..raw.len() {
            (*base.add(i - 1)).next = base.add(i);
        }
        let mut bad = std::ptr::null_mut();
        check("pv_post_send", ffi::pv_post_send(self.qp.qp, base, &mut bad))
    }

    /// Post a list of receive work requests with one `pv_post_recv()`
    /// (pollverbs addition).
    ///
    /// # Safety
    /// As [`post_receive`](Self::post_receive), for every SGE.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] an empty list; [`Error::Verbs`]
    /// `pv_post_recv` as `post_receive`.
    pub unsafe fn post_recv(&mut self, reqs: &[RecvRequest<'_>]) -> Result<()> {
        if reqs.is_empty() {
            return Err(Error::InvalidArgument("an empty receive request list".into()));
        }
        let mut raw: Vec<ffi::pv_recv_wr> = reqs
            .iter()
            .map(|r| ffi::pv_recv_wr {
                wr_id: r.wr_id,
                next: std::ptr::null_mut(),
                sg_list: r.sges.as_ptr() as *mut ffi::pv_sge,
                num_sge: r.sges.len() as i32,
            })
            .collect();
        let base = raw.as_mut_ptr();
        for i in 1..raw.len() {
            (*base.add(i - 1)).next = base.add(i);
        }
        let mut bad = std::ptr::null_mut();
        check("pv_post_recv", ffi::pv_post_recv(self.qp.qp, base, &mut bad))
    }

    /// The QP number (pollverbs addition).
    pub fn qp_num(&self) -> u32 {
        unsafe { (*self.qp.qp).qp_num }
    }

    /// The raw QP (pollverbs addition).
    pub fn as_raw(&self) -> *mut ffi::pv_qp {
        self.qp.qp
    }
}

/// A receive work request: where one incoming message goes.
#[derive(Debug, Clone, Copy)]
pub struct RecvRequest<'a> {
    /// Returned in the completion.
    pub wr_id: u64,
    /// Registered buffers, filled in order.
    pub sges: &'a [Sge],
}

#[derive(Debug, Clone, Copy)]
enum Op {
    Send,
    Write(RemoteMemory),
    Read(RemoteMemory),
    CompareSwap(RemoteMemory, u64, u64),
    FetchAdd(RemoteMemory, u64),
}

/// One send work request for [`QueuePair::post`]: built by an operation
/// constructor, then adjusted (`signaled` by default).
#[derive(Debug, Clone, Copy)]
pub struct WorkRequest<'a> {
    wr_id: u64,
    sges: &'a [Sge],
    op: Op,
    imm: Option<u32>,
    flags: ibv_send_flags,
    ud: Option<(&'a AddressHandle, u32, u32)>,
}

impl<'a> WorkRequest<'a> {
    fn new(wr_id: u64, sges: &'a [Sge], op: Op) -> WorkRequest<'a> {
        WorkRequest { wr_id, sges, op, imm: None, flags: ibv_send_flags::IBV_SEND_SIGNALED, ud: None }
    }

    /// SEND of `sges`.
    pub fn send(wr_id: u64, sges: &'a [Sge]) -> WorkRequest<'a> {
        WorkRequest::new(wr_id, sges, Op::Send)
    }

    /// RDMA WRITE of `sges` to `remote` (its first bytes).
    pub fn write(wr_id: u64, sges: &'a [Sge], remote: RemoteMemory) -> WorkRequest<'a> {
        WorkRequest::new(wr_id, sges, Op::Write(remote))
    }

    /// RDMA READ of `remote` (its first bytes) into `sges`.
    pub fn read(wr_id: u64, sges: &'a [Sge], remote: RemoteMemory) -> WorkRequest<'a> {
        WorkRequest::new(wr_id, sges, Op::Read(remote))
    }

    /// Atomic compare and swap of the 8 bytes at `remote`: the old value
    /// lands in `sge` (one SGE of 8 bytes).
    pub fn compare_swap(
        wr_id: u64,
        sge: &'a [Sge],
        remote: RemoteMemory,
        compare: u64,
        swap: u64,
    ) -> WorkRequest<'a> {
        WorkRequest::new(wr_id, sge, Op::CompareSwap(remote, compare, swap))
    }

    /// Atomic fetch and add on the 8 bytes at `remote`: the old value lands
    /// in `sge` (one SGE of 8 bytes).
    pub fn fetch_add(wr_id: u64, sge: &'a [Sge], remote: RemoteMemory, add: u64) -> WorkRequest<'a> {
        WorkRequest::new(wr_id, sge, Op::FetchAdd(remote, add))
    }

    /// Carry immediate data (host order): SEND_WITH_IMM or
    /// RDMA_WRITE_WITH_IMM; ignored by READ and atomics (then rejected).
    pub fn imm(mut self, imm: u32) -> Self {
        self.imm = Some(imm);
        self
    }

    /// No completion unless it fails (or the QP signals all).
    pub fn unsignaled(mut self) -> Self {
        self.flags = ibv_send_flags(self.flags.0 & !ibv_send_flags::IBV_SEND_SIGNALED.0);
        self
    }

    /// Wait for earlier READs and atomics before this one (`IBV_SEND_FENCE`).
    pub fn fenced(mut self) -> Self {
        self.flags |= ibv_send_flags::IBV_SEND_FENCE;
        self
    }

    /// Ask for a solicited event at the receiver (`IBV_SEND_SOLICITED`).
    pub fn solicited(mut self) -> Self {
        self.flags |= ibv_send_flags::IBV_SEND_SOLICITED;
        self
    }

    /// Copy the data into the WR at post time (`IBV_SEND_INLINE`): the SGEs
    /// need no registration (lkey ignored) and may be reused at once; at
    /// most the QP's `max_inline_data` bytes.
    pub fn inline(mut self) -> Self {
        self.flags |= ibv_send_flags::IBV_SEND_INLINE;
        self
    }

    /// The destination of a UD send: address handle, remote QPN, Q_Key.
    pub fn to(mut self, ah: &'a AddressHandle, remote_qpn: u32, remote_qkey: u32) -> Self {
        self.ud = Some((ah, remote_qpn, remote_qkey));
        self
    }

    fn bytes(&self) -> u64 {
        self.sges.iter().map(|s| u64::from(s.length)).sum()
    }

    fn to_raw(&self) -> Result<ffi::pv_send_wr> {
        use ffi::pv_wr_opcode::*;
        let mut wr = ffi::pv_send_wr::default();
        wr.wr_id = self.wr_id;
        wr.sg_list = self.sges.as_ptr() as *mut ffi::pv_sge;
        wr.num_sge = self.sges.len() as i32;
        wr.send_flags = self.flags.0;
        if let Some(imm) = self.imm {
            wr.__bindgen_anon_1.imm_data = imm.to_be();
        }
        let fits = |r: &RemoteMemory| {
            if self.bytes() > r.len {
                Err(Error::InvalidArgument(format!(
                    "{} bytes to or from remote memory of {}",
                    self.bytes(),
                    r.len
                )))
            } else {
                Ok(())
            }
        };
        let atomic_sge = || {
            if self.sges.len() != 1 || self.sges[0].length != 8 {
                Err(Error::InvalidArgument("an atomic needs one SGE of 8 bytes".into()))
            } else if self.imm.is_some() {
                Err(Error::InvalidArgument("an atomic carries no immediate data".into()))
            } else {
                Ok(())
            }
        };
        match self.op {
            Op::Send => {
                wr.opcode = if self.imm.is_some() { PV_WR_SEND_WITH_IMM } else { PV_WR_SEND };
            }
            Op::Write(r) => {
                fits(&r)?;
                wr.opcode =
                    if self.imm.is_some() { PV_WR_RDMA_WRITE_WITH_IMM } else { PV_WR_RDMA_WRITE };
                wr.wr.rdma.remote_addr = r.addr;
                wr.wr.rdma.rkey = r.rkey;
            }
            Op::Read(r) => {
                fits(&r)?;
                if self.imm.is_some() {
                    return Err(Error::InvalidArgument("a READ carries no immediate data".into()));
                }
                wr.opcode = PV_WR_RDMA_READ;
                wr.wr.rdma.remote_addr = r.addr;
                wr.wr.rdma.rkey = r.rkey;
            }
            Op::CompareSwap(r, compare, swap) => {
                atomic_sge()?;
                fits(&r)?;
                wr.opcode = PV_WR_ATOMIC_CMP_AND_SWP;
                wr.wr.atomic.remote_addr = r.addr;
                wr.wr.atomic.rkey = r.rkey;
                wr.wr.atomic.compare_add = compare;
                wr.wr.atomic.swap = swap;
            }
            Op::FetchAdd(r, add) => {
                atomic_sge()?;
                fits(&r)?;
                wr.opcode = PV_WR_ATOMIC_FETCH_AND_ADD;
                wr.wr.atomic.remote_addr = r.addr;
                wr.wr.atomic.rkey = r.rkey;
                wr.wr.atomic.compare_add = add;
            }
        }
        if let Some((ah, qpn, qkey)) = self.ud {
            wr.wr.ud.ah = ah.ah;
            wr.wr.ud.remote_qpn = qpn;
            wr.wr.ud.remote_qkey = qkey;
        }
        Ok(wr)
    }
}

/// SGEs over plain bytes, for inline sends (no registration needed).
pub fn inline_sge(data: &[u8]) -> Sge {
    Sge { addr: data.as_ptr() as u64, length: data.len() as u32, lkey: 0 }
}
