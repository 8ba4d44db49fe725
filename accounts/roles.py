"""Roles and what each may do. A role includes every role before it in ROLES."""

from __future__ import annotations

from fpkg.errors import InputError

ROLES = ("viewer", "curator", "admin")
# action -> the least role that may take it
ACTION_ROLES = {
    "diagnose": "viewer", "ask": "viewer", "explore": "viewer", "history": "viewer",
    "review": "curator", "merge": "curator", "approve": "curator",
    "undo": "admin", "manage_users": "admin", "audit": "admin",
}


def checked_role(role: str) -> str:
    if role not in ROLES:
        raise InputError(f"Unknown role {role!r}; use one of {', '.join(ROLES)}.")
    return role


def may(role: str | None, action: str) -> bool:
    """Whether `role` may take `action`; no role (unknown, absent) may take none."""
    if role not in ROLES:
        return False
    return ROLES.index(role) >= ROLES.index(ACTION_ROLES[action])
