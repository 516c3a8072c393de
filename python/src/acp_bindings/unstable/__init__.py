"""The unstable schemas' types: ``acp_bindings.unstable.v1`` and ``acp_bindings.unstable.v2``."""
