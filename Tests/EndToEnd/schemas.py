"""Validation against the machine-readable contract in Protocol/schemas."""

import json
import os

import jsonschema

SCHEMA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "Protocol", "schemas")
_cache = {}


def schema(name):
    if name not in _cache:
        with open(os.path.join(SCHEMA_DIR, name + ".schema.json"), encoding="utf-8") as handle:
            _cache[name] = json.load(handle)
    return _cache[name]


_registry_cache = []
_validators = {}


def _registry():
    if _registry_cache:
        return _registry_cache[0]
    from referencing import Registry, Resource
    resources = []
    for filename in os.listdir(SCHEMA_DIR):
        if filename.endswith(".schema.json"):
            loaded = schema(filename[: -len(".schema.json")])
            resources.append((loaded["$id"], Resource.from_contents(loaded)))
    _registry_cache.append(Registry().with_resources(resources))
    return _registry_cache[0]


def validator(name):
    if name not in _validators:
        _validators[name] = jsonschema.Draft202012Validator(schema(name), registry=_registry())
    return _validators[name]


def validate(name, value):
    validator(name).validate(value)


def ref_name(ref):
    """`schemas/x.schema.json` -> `x`."""
    return ref["$ref"][len("schemas/"): -len(".schema.json")]


# -- Closed schemas ------------------------------------------------------------
#
# A client that refuses unknown members (Go's DisallowUnknownFields) needs
# every object the host sends described in full: at each place in a frame
# where an object may stand, some schema that applies there must close it
# (`unevaluatedProperties` or `additionalProperties` other than true; a map
# is an `additionalProperties` schema). `unevaluatedProperties: false` at the
# top of an `allOf` closes what its members describe together.

def _is_object(node):
    kind = node.get("type")
    return "properties" in node or "patternProperties" in node or kind == "object" or (isinstance(kind, list) and "object" in kind)


def _closes(node):
    return node.get("unevaluatedProperties", True) is not True or node.get("additionalProperties", True) is not True


def _resolve(current, ref):
    """(file name, node) a `$ref` names, from the file `current`."""
    target, _, pointer = ref.partition("#")
    name = os.path.basename(target)[: -len(".schema.json")] if target else current
    node = schema(name)
    for part in [p for p in pointer.split("/") if p]:
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return name, node


def _places(current, node, place, found, depth=0):
    """Every (instance place, subschema) of a schema: `place` is a path in the
    instance, `*` for any item or member of a map."""
    if not isinstance(node, dict) or depth > 64:
        return
    found.setdefault(place, []).append(("%s %s" % (current, place or "/"), node))
    if "$ref" in node:
        name, target = _resolve(current, node["$ref"])
        _places(name, target, place, found, depth + 1)
    for key in ("allOf", "anyOf", "oneOf"):
        for member in node.get(key, []):
            _places(current, member, place, found, depth + 1)
    for key in ("then", "else"):
        _places(current, node.get(key), place, found, depth + 1)
    for member, sub in node.get("properties", {}).items():
        _places(current, sub, place + "/" + member, found, depth + 1)
    for sub in list(node.get("patternProperties", {}).values()) + [node.get("additionalProperties"), node.get("items")] + node.get("prefixItems", []):
        _places(current, sub, place + "/*", found, depth + 1)


def open_objects(name):
    """The places in what schema `name` describes where an object is left open."""
    found = {}
    _places(name, schema(name), "", found)
    return sorted(where for place, nodes in found.items() for where, node in nodes
                  if _is_object(node) and not any(_closes(other) for _, other in nodes))
