"""Typed models for everything that crosses a module boundary."""
