"""The bodies of the composite ops, one module per ops/ family (see ops/README.md)."""
