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
