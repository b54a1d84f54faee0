// A flow's tests use the SDK's types (`JSON`, `FlowHostError`, `Flow`)
// alongside the test host: importing FlowHostTesting is enough.
@_exported import FlowHostSDK
