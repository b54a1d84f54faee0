
// A flow names spec §3's codes (`ErrorCode`) in its `FlowHostError`s and in
// the failures it matches; importing the SDK is enough for that.
@_exported import FlowHostVocabulary

// Every SDK signature speaks `JSON`: a flow imports the SDK alone.
@_exported import FlowJSON
