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


def _registry():
    from referencing import Registry, Resource
    resources = []
    for filename in os.listdir(SCHEMA_DIR):
        if filename.endswith(".schema.json"):
            loaded = schema(filename[: -len(".schema.json")])
            resources.append((loaded["$id"], Resource.from_contents(loaded)))
    return Registry().with_resources(resources)


def validate(name, value):
    jsonschema.Draft202012Validator(schema(name), registry=_registry()).validate(value)
