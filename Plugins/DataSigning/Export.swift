import FlowHostSDK

/// The library's one C entry point: the host finds the `data-signing` flow through it.
@_cdecl("flowhost_plugin_v1")
public func flowhostPluginV1() -> UnsafeRawPointer { FlowExport.descriptor(for: DataSigningFlow.self) }
