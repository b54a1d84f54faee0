/// The keys a manifest may hold at each level, generated from the published
/// `Protocol/schemas/manifest.schema.json` (`Generated/ManifestSchemaKeys.swift`),
/// so the loader and the schema refuse the same manifests. A key a flow's
/// author misspelled must not pass silently: `startsDialog` for
/// `startsDialogue` would quietly remove the one-dialogue guard.
/// `ManifestReader` refuses an unknown key with its path and the nearest of
/// these.
enum ManifestKeys {}
