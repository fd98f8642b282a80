"""Conformance of a mechanism to :class:`dpexact.protocols.Mechanism`: does it do what it declares?
(:func:`.checks.conform`; the real-valued output kinds in :mod:`.real_outputs`.)

Submodules are imported on use.
"""
