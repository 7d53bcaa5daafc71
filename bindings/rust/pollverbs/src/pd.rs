// SPDX-License-Identifier: BSD-3-Clause
//! Protection domains, memory regions, address handles, shared receive queues.

use std::marker::PhantomData;
use std::ops::{Bound, Deref, DerefMut, RangeBounds};
use std::sync::Arc;

use crate::cq::CompletionQueue;
use crate::device::{Context, Ctx, Gid};
use crate::error::{check, destroyed, Error, Result};
use crate::ffi;
use crate::names::{ibv_access_flags, ibv_qp_type};
use crate::qp::QueuePairBuilder;

/// The C PD; deallocated when the last handle (PD, MRs, QPs, AHs, SRQs) goes.
#[derive(Debug)]
pub(crate) struct Pd {
    pub(crate) pd: *mut ffi::pv_pd,
    _ctx: Arc<Ctx>,
}

// pv_verbs.h: any thread, any object, in the default thread-safe mode.
unsafe impl Send for Pd {}
unsafe impl Sync for Pd {}

impl Drop for Pd {
    fn drop(&mut self) {
        destroyed("pv_dealloc_pd", unsafe { ffi::pv_dealloc_pd(self.pd) });
    }
}

pub(crate) fn alloc(ctx: &Context) -> Result<ProtectionDomain<'_>> {
    let pd = unsafe { ffi::pv_alloc_pd(ctx.inner.ctx) };
    if pd.is_null() {
        return Err(Error::last("pv_alloc_pd"));
    }
    Ok(ProtectionDomain {
        inner: Arc::new(Pd { pd, _ctx: ctx.inner.clone() }),
        ctx: ctx.clone(),
        _ctx: PhantomData,
    })
}

/// A protection domain (`ibv_pd`).
#[derive(Debug)]
pub struct ProtectionDomain<'ctx> {
    pub(crate) inner: Arc<Pd>,
    pub(crate) ctx: Context,
    _ctx: PhantomData<&'ctx ()>,
}

/// Byte range `r` of a slice of `len` elements of `size` bytes, checked.
fn byte_range<R: RangeBounds<usize>>(r: &R, len: usize, size: usize) -> Result<(usize, usize)> {
    let start = match r.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.saturating_add(1),
        Bound::Unbounded => 0,
    };
    let end = match r.end_bound() {
        Bound::Included(&e) => e.saturating_add(1),
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    if start > end || end > len {
        return Err(Error::InvalidArgument(format!(
            "range {}..{} of a region of {} elements",
            start, end, len
        )));
    }
    Ok((start * size, (end - start) * size))
}

impl<'ctx> ProtectionDomain<'ctx> {
    /// Start building a queue pair of type `qp_type` with `send` and `recv`
    /// as its CQs (`ibv_create_qp(3)` once built). The builder keeps the
    /// `ibverbs` crate's defaults (one WR and one SGE per queue) and adds
    /// setters for the rest.
    pub fn create_qp<'pd, 'scq, 'rcq, 'res>(
        &'pd self,
        send: &'scq CompletionQueue<'_>,
        recv: &'rcq CompletionQueue<'_>,
        qp_type: ibv_qp_type::Type,
    ) -> QueuePairBuilder<'res>
    where
        'scq: 'res,
        'rcq: 'res,
        'pd: 'res,
    {
        QueuePairBuilder::new(self, send, recv, qp_type)
    }

    /// Allocate `n` default values of `T` and register them
    /// (`ibv_reg_mr(3)`) with local write, remote write, remote read and
    /// remote atomic access.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] `n` 0 or `T` zero-sized;
    /// [`Error::Verbs`] `pv_reg_mr` (ENOMEM).
    pub fn allocate<T: Sized + Copy + Default>(&self, n: usize) -> Result<MemoryRegion<T>> {
        self.allocate_with_access(
            n,
            ibv_access_flags::IBV_ACCESS_LOCAL_WRITE
                | ibv_access_flags::IBV_ACCESS_REMOTE_WRITE
                | ibv_access_flags::IBV_ACCESS_REMOTE_READ
                | ibv_access_flags::IBV_ACCESS_REMOTE_ATOMIC,
        )
    }

    /// [`allocate`](ProtectionDomain::allocate) with the given access flags
    /// (pollverbs addition). Errors as `allocate`, plus EINVAL from
    /// `pv_reg_mr` for a bad combination (remote write without local write).
    pub fn allocate_with_access<T: Sized + Copy + Default>(
        &self,
        n: usize,
        access: ibv_access_flags,
    ) -> Result<MemoryRegion<T>> {
        if n == 0 || std::mem::size_of::<T>() == 0 {
            return Err(Error::InvalidArgument("an empty memory region".into()));
        }
        let mut data = vec![T::default(); n];
        let mr = unsafe {
            ffi::pv_reg_mr(
                self.inner.pd,
                data.as_mut_ptr() as *mut std::os::raw::c_void,
                n * std::mem::size_of::<T>(),
                access.0 as i32,
            )
        };
        if mr.is_null() {
            return Err(Error::last("pv_reg_mr"));
        }
        Ok(MemoryRegion { mr, data, _pd: self.inner.clone() })
    }

    /// Create an address handle for UD sends (`ibv_create_ah(3)`).
    /// # Errors
    /// [`Error::Verbs`] `pv_create_ah`: EINVAL bad port or sgid index, a
    /// dgid of the other IP family.
    pub fn create_ah(&self, attr: &AddressHandleAttr) -> Result<AddressHandle> {
        let mut a = ffi::pv_ah_attr::default();
        a.is_global = 1;
        a.port_num = attr.port;
        a.sl = attr.service_level;
        a.dlid = attr.dlid;
        a.grh.dgid = attr.dgid.into();
        a.grh.sgid_index = attr.sgid_index;
        a.grh.hop_limit = attr.hop_limit;
        a.grh.traffic_class = attr.traffic_class;
        a.grh.flow_label = attr.flow_label;
        let ah = unsafe { ffi::pv_create_ah(self.inner.pd, &mut a) };
        if ah.is_null() {
            return Err(Error::last("pv_create_ah"));
        }
        Ok(AddressHandle { ah, _pd: self.inner.clone() })
    }

    /// Create a shared receive queue of `max_wr` WRs of `max_sge` SGEs each
    /// (`ibv_create_srq(3)`).
    /// # Errors
    /// [`Error::Verbs`] `pv_create_srq`: EINVAL sizes beyond the device's,
    /// EOPNOTSUPP no SRQ on this driver, ENOMEM.
    pub fn create_srq(&self, max_wr: u32, max_sge: u32) -> Result<SharedReceiveQueue<'ctx>> {
        let mut ia = ffi::pv_srq_init_attr::default();
        ia.attr.max_wr = max_wr;
        ia.attr.max_sge = max_sge;
        let srq = unsafe { ffi::pv_create_srq(self.inner.pd, &mut ia) };
        if srq.is_null() {
            return Err(Error::last("pv_create_srq"));
        }
        Ok(SharedReceiveQueue {
            inner: Arc::new(Srq { srq, _pd: self.inner.clone() }),
            _ctx: PhantomData,
        })
    }

    /// The context (pollverbs addition).
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The raw PD (pollverbs addition).
    pub fn as_raw(&self) -> *mut ffi::pv_pd {
        self.inner.pd
    }
}

/// A registered memory region holding `n` values of `T` (`ibv_mr`).
///
/// It keeps its protection domain (and context) alive, and derefs to its
/// slice. Deregistered, then freed, on drop: wait for the completions of
/// the work requests that use it first (that is why posting is `unsafe`).
#[derive(Debug)]
pub struct MemoryRegion<T> {
    mr: *mut ffi::pv_mr,
    data: Vec<T>,
    _pd: Arc<Pd>,
}

// The buffer is owned like a Vec<T>; the MR handle is usable from any thread.
unsafe impl<T: Send> Send for MemoryRegion<T> {}
unsafe impl<T: Sync> Sync for MemoryRegion<T> {}

impl<T> Deref for MemoryRegion<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.data[..]
    }
}

impl<T> DerefMut for MemoryRegion<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.data[..]
    }
}

impl<T> Drop for MemoryRegion<T> {
    fn drop(&mut self) {
        if !destroyed("pv_dereg_mr", unsafe { ffi::pv_dereg_mr(self.mr) }) {
            // EBUSY (memory windows bound): keep the memory rather than free
            // what the device may still reach
            std::mem::forget(std::mem::take(&mut self.data));
        }
    }
}

impl<T> MemoryRegion<T> {
    /// The remote key, for a peer's RDMA READ/WRITE/atomics.
    pub fn rkey(&self) -> RemoteKey {
        RemoteKey(unsafe { (*self.mr).rkey })
    }

    /// The local key (pollverbs addition).
    pub fn lkey(&self) -> u32 {
        unsafe { (*self.mr).lkey }
    }

    /// A scatter/gather entry for elements `range` (pollverbs addition).
    /// # Errors
    /// [`Error::InvalidArgument`] a range beyond the region or over 4 GiB.
    pub fn sge<R: RangeBounds<usize>>(&self, range: R) -> Result<Sge> {
        let (off, len) = byte_range(&range, self.data.len(), std::mem::size_of::<T>())?;
        if len > u32::MAX as usize {
            return Err(Error::InvalidArgument(format!("an SGE of {} bytes", len)));
        }
        Ok(Sge {
            addr: self.data.as_ptr() as u64 + off as u64,
            length: len as u32,
            lkey: self.lkey(),
        })
    }

    /// What a peer needs to reach elements `range` with RDMA (pollverbs
    /// addition): address, length, rkey; serializable with serde.
    /// # Errors
    /// [`Error::InvalidArgument`] a range beyond the region.
    pub fn remote<R: RangeBounds<usize>>(&self, range: R) -> Result<RemoteMemory> {
        let (off, len) = byte_range(&range, self.data.len(), std::mem::size_of::<T>())?;
        Ok(RemoteMemory {
            addr: self.data.as_ptr() as u64 + off as u64,
            len: len as u64,
            rkey: self.rkey().0,
        })
    }

    /// The raw MR (pollverbs addition).
    pub fn as_raw(&self) -> *mut ffi::pv_mr {
        self.mr
    }
}

/// A remote key (`rkey`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RemoteKey(pub u32);

/// A scatter/gather entry (`ibv_sge`, same layout): registered local memory.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sge {
    /// Start address.
    pub addr: u64,
    /// Bytes.
    pub length: u32,
    /// The MR's local key.
    pub lkey: u32,
}

// Sge is passed to the C side as pv_sge
const _: () = assert!(std::mem::size_of::<Sge>() == std::mem::size_of::<ffi::pv_sge>());
const _: () = assert!(std::mem::align_of::<Sge>() == std::mem::align_of::<ffi::pv_sge>());

/// Remote memory a peer registered: the target of RDMA WRITE, READ and
/// atomics (pollverbs addition).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RemoteMemory {
    /// Start address in the peer's address space.
    pub addr: u64,
    /// Bytes.
    pub len: u64,
    /// The peer MR's rkey.
    pub rkey: u32,
}

impl RemoteMemory {
    /// The bytes `offset..offset + len` of this memory.
    /// # Errors
    /// [`Error::InvalidArgument`] beyond its end.
    pub fn slice(&self, offset: u64, len: u64) -> Result<RemoteMemory> {
        match offset.checked_add(len) {
            Some(end) if end <= self.len => {
                Ok(RemoteMemory { addr: self.addr + offset, len, rkey: self.rkey })
            }
            _ => Err(Error::InvalidArgument(format!(
                "bytes {}+{} of remote memory of {}",
                offset, len, self.len
            ))),
        }
    }
}

/// Attributes of an address handle (`ibv_ah_attr` with a GRH, as RoCE needs).
#[derive(Debug, Clone, Copy)]
pub struct AddressHandleAttr {
    /// Destination GID.
    pub dgid: Gid,
    /// Source GID index (its family must be the dgid's).
    pub sgid_index: u8,
    /// Port, from 1.
    pub port: u8,
    /// Destination LID (0 on RoCE).
    pub dlid: u16,
    /// Hop limit.
    pub hop_limit: u8,
    /// Traffic class (DSCP and ECN bits).
    pub traffic_class: u8,
    /// Flow label (20 bits).
    pub flow_label: u32,
    /// Service level.
    pub service_level: u8,
}

impl AddressHandleAttr {
    /// Towards `dgid` from `ctx`'s port and GID index, hop limit 64.
    pub fn new(ctx: &Context, dgid: Gid) -> AddressHandleAttr {
        AddressHandleAttr {
            dgid,
            sgid_index: ctx.gid_index(),
            port: ctx.port(),
            dlid: 0,
            hop_limit: 64,
            traffic_class: 0,
            flow_label: 0,
            service_level: 0,
        }
    }
}

/// An address handle (`ibv_ah`): the destination of UD sends.
#[derive(Debug)]
pub struct AddressHandle {
    pub(crate) ah: *mut ffi::pv_ah,
    _pd: Arc<Pd>,
}

unsafe impl Send for AddressHandle {}
unsafe impl Sync for AddressHandle {}

impl Drop for AddressHandle {
    fn drop(&mut self) {
        destroyed("pv_destroy_ah", unsafe { ffi::pv_destroy_ah(self.ah) });
    }
}

impl AddressHandle {
    /// The raw AH.
    pub fn as_raw(&self) -> *mut ffi::pv_ah {
        self.ah
    }
}

/// The C SRQ; destroyed when the SRQ and every QP using it are gone.
#[derive(Debug)]
pub(crate) struct Srq {
    pub(crate) srq: *mut ffi::pv_srq,
    _pd: Arc<Pd>,
}

unsafe impl Send for Srq {}
unsafe impl Sync for Srq {}

impl Drop for Srq {
    fn drop(&mut self) {
        destroyed("pv_destroy_srq", unsafe { ffi::pv_destroy_srq(self.srq) });
    }
}

/// A shared receive queue (`ibv_srq`): receive WRs shared by the QPs built
/// with [`QueuePairBuilder::set_srq`].
#[derive(Debug, Clone)]
pub struct SharedReceiveQueue<'ctx> {
    pub(crate) inner: Arc<Srq>,
    _ctx: PhantomData<&'ctx ()>,
}

impl<'ctx> SharedReceiveQueue<'ctx> {
    /// Post a receive of elements `range` of `mr` (`ibv_post_srq_recv(3)`).
    ///
    /// # Safety
    /// `mr` must stay alive and unread until the WR completes.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] a bad range; [`Error::Verbs`]
    /// `pv_post_srq_recv`: ENOMEM the SRQ is full.
    pub unsafe fn post_receive<T, R: RangeBounds<usize>>(
        &self,
        mr: &mut MemoryRegion<T>,
        range: R,
        wr_id: u64,
    ) -> Result<()> {
        let sge = mr.sge(range)?;
        self.post_recv_sges(wr_id, &[sge])
    }

    /// Post a receive of the given SGEs (`ibv_post_srq_recv(3)`).
    ///
    /// # Safety
    /// The memory of `sges` must stay registered and unread until the WR
    /// completes. Errors as [`post_receive`](SharedReceiveQueue::post_receive).
    pub unsafe fn post_recv_sges(&self, wr_id: u64, sges: &[Sge]) -> Result<()> {
        let mut raw: Vec<ffi::pv_sge> = sges
            .iter()
            .map(|s| ffi::pv_sge { addr: s.addr, length: s.length, lkey: s.lkey })
            .collect();
        let mut wr = ffi::pv_recv_wr {
            wr_id,
            next: std::ptr::null_mut(),
            sg_list: raw.as_mut_ptr(),
            num_sge: raw.len() as i32,
        };
        let mut bad = std::ptr::null_mut();
        check("pv_post_srq_recv", ffi::pv_post_srq_recv(self.inner.srq, &mut wr, &mut bad))
    }

    /// The raw SRQ.
    pub fn as_raw(&self) -> *mut ffi::pv_srq {
        self.inner.srq
    }
}
