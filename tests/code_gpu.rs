//! The device code a context loads: the shipped cubin of the device's architecture (or PTX where
//! none is shipped), one family's module at a time on first use, shared by every handle on the
//! context; the PTX fallback forced by `WARPWORK_CODE=ptx`; and a first use inside a stream
//! capture in the strictest (global) mode, which must load the module and leave the capture valid.
//!
//! One test, its phases in order: the modules a context has loaded are the point, and other tests
//! running beside it on the same context would load them first.

mod common;

use warpwork::abi::modules::{cubin_arch, Family};
use warpwork::cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use warpwork::select::{state_len, Keep, Predicate, Variant};
use warpwork::{Code, Gpu, PtxReason, FORCE_PTX_VAR};

/// Selects the items below 100 of 0..n by value in `gpu`'s stream, recorded in a global-mode
/// capture and replayed; returns the count.
fn select_in_a_capture(gpu: &Gpu, n: u32) -> usize {
    let items = gpu.upload(&(0..n).collect::<Vec<u32>>()).unwrap();
    let mut out = gpu.zeros::<u32>(n as usize).unwrap();
    let mut state = gpu.zeros::<u64>(state_len::<u32>(Variant::Ordered, n as usize)).unwrap();
    let (ctx, stream) = (gpu.context(), gpu.stream());
    stream.synchronize().unwrap();
    // SAFETY: nothing else runs on this context during the capture; no buffer is created or
    // freed during it (the module's own load is the point of the test).
    unsafe { ctx.disable_event_tracking() };
    stream.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL).unwrap();
    let recorded = gpu.select_into(&items, Keep::If(Predicate::Less(100)), Variant::Ordered, &mut out, &mut state);
    let graph = stream.end_capture(CUgraphInstantiate_flags(0));
    // SAFETY: as above.
    unsafe { ctx.enable_event_tracking() };
    recorded.expect("select_into in a capture");
    let graph = graph.expect("end_capture: the capture stayed valid").expect("a graph");
    graph.launch().unwrap();
    let count = gpu.select_count(&out, &state).unwrap();
    assert_eq!(gpu.download_prefix(&out, count).unwrap(), (0..100).collect::<Vec<u32>>());
    count
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn cubins_ptx_and_first_use_in_a_capture() {
    assert!(std::env::var_os(FORCE_PTX_VAR).is_none(), "run without {FORCE_PTX_VAR}");
    let gpu = common::gpu();
    let (major, minor) = gpu.info().compute_capability;
    let expected = match cubin_arch(major as u32, minor as u32) {
        Some(a) => Code::Cubin { arch: a.name },
        None => Code::Ptx { arch: if major >= 9 { "sm_90" } else { "sm_70" }, why: PtxReason::NoCubin },
    };
    assert_eq!(gpu.info().code, expected);
    assert!(gpu.modules().is_empty(), "nothing loads before it is needed: {:?}", gpu.modules());

    // First use inside a global-mode capture: the select module loads, the graph replays.
    assert_eq!(select_in_a_capture(&gpu, 1 << 16), 100);
    let loaded = gpu.modules();
    assert_eq!(loaded.len(), 1, "{loaded:?}");
    assert_eq!((loaded[0].family, &loaded[0].code), (Family::Select, &expected));
    println!("select module: {} in {:?}", loaded[0].code, loaded[0].load_time);

    // A second handle on the same context shares the loaded module and loads nothing more, also
    // when it comes through another cudarc object of the context, whose settings stay its own.
    let ctx = warpwork::cudarc::driver::CudaContext::new(0).unwrap();
    let other = Gpu::from_stream(ctx.new_stream().unwrap()).unwrap();
    assert!(std::sync::Arc::ptr_eq(other.context(), &ctx), "the handle's context is its stream's");
    assert_eq!(other.modules().len(), 1);
    assert_eq!(other.modules()[0].load_time, loaded[0].load_time, "the same load");
    drop((gpu, other, ctx));

    // Forced PTX: a new context state (the old one went with its last handle) loads PTX.
    std::env::set_var(FORCE_PTX_VAR, "ptx");
    let gpu = common::gpu();
    std::env::remove_var(FORCE_PTX_VAR);
    let ptx = Code::Ptx { arch: if major >= 9 { "sm_90" } else { "sm_70" }, why: PtxReason::Forced };
    assert_eq!(gpu.info().code, ptx);
    assert_eq!(select_in_a_capture(&gpu, 1000), 100);
    let input = gpu.upload(&[1u64; 1000]).unwrap();
    let mut sums = gpu.zeros::<u64>(1000).unwrap();
    gpu.exclusive_scan(&input, &mut sums).unwrap();
    assert_eq!(gpu.download(&sums).unwrap()[999], 999);
    let families: Vec<_> = gpu.modules().iter().map(|m| (m.family, m.code.clone())).collect();
    assert_eq!(families, [(Family::Select, ptx.clone()), (Family::Scan, ptx)]);
    for m in gpu.modules() {
        println!("{:?} module: {} in {:?}", m.family, m.code, m.load_time);
    }
    drop(gpu);

    // A user's own device code: loaded once per context, shared by every handle, and it runs.
    let gpu = common::gpu();
    let module = gpu.load(&OWN).unwrap();
    let other = Gpu::from_stream(gpu.context().new_stream().unwrap()).unwrap();
    assert!(std::sync::Arc::ptr_eq(&module, &other.load(&OWN).unwrap()), "one load per context");
    let kernels = other.kernels(&OWN, &["write_seven"]).unwrap();
    assert!(kernels.get("write_eight").is_err());
    let f = kernels.get("write_seven").unwrap().clone();
    let mut out = gpu.zeros::<u32>(1).unwrap();
    let mut l = gpu.kernel_args();
    l.write(&mut out);
    // SAFETY: `write_seven(out)` writes one u32 at `out`, which holds one.
    unsafe { l.launch(&f, warpwork::cudarc::driver::LaunchConfig::for_num_elems(1)).unwrap() };
    assert_eq!(gpu.download(&out).unwrap(), [7]);

    // PTX made at run time: the same text is loaded once per context, another text is another
    // module, and each runs its own constant.
    let made = |value: u32| OWN.ptx[0].1.replace("mov.u32 %r1, 7;", &format!("mov.u32 %r1, {value};"));
    for value in [11u32, 12, 11] {
        let kernels = other.ptx_kernels("made", &made(value), &["write_seven"]).unwrap();
        assert!(kernels.get("write_eight").is_err());
        let f = kernels.get("write_seven").unwrap().clone();
        let mut l = gpu.kernel_args();
        l.write(&mut out);
        // SAFETY: as above.
        unsafe { l.launch(&f, warpwork::cudarc::driver::LaunchConfig::for_num_elems(1)).unwrap() };
        assert_eq!(gpu.download(&out).unwrap(), [value]);
    }
    let first = gpu.ptx_kernels("made", &made(11), &["write_seven"]).unwrap();
    let again = other.ptx_kernels("made", &made(11), &["write_seven"]).unwrap();
    assert_eq!(first.get("write_seven").unwrap().cu_function(), again.get("write_seven").unwrap().cu_function());
    assert!(gpu.ptx_kernels("made", "not PTX", &["write_seven"]).is_err());
}

/// A module of "your own": one kernel that writes 7.
static OWN: warpwork::DeviceCode = warpwork::DeviceCode {
    name: "write-seven",
    ptx: &[(
        "sm_70",
        ".version 6.0\n.target sm_70\n.address_size 64\n\
         .visible .entry write_seven(.param .u64 out)\n{\n.reg .b64 %rd<3>;\n.reg .b32 %r<2>;\n\
         ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, 7;\n\
         st.global.u32 [%rd2], %r1;\nret;\n}\n",
    )],
    cubins: &[],
};
