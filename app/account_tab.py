"""Who is signed in (the line at the top of the page), which tabs their role may use, and the Admin tab: users
and the audit log.

The admin endpoint `/audit` checks the role on the server like every other; the tab itself is shown to admins
only, and the Curate tab to curators and admins (`tabs_for`): a visitor never meets a tab they cannot use.
"""

from __future__ import annotations

import html

import gradio as gr

from accounts.roles import may
from app.access import Access, allow
from app.gradio_bind import bind

AUDIT_HEADERS = ["when (UTC)", "who", "action", "detail"]
USER_HEADERS = ["user", "role", "signs in with", "added"]
SHOWN_RECORDS = 500  # the newest


def account_line(access: Access, request: gr.Request = None) -> str:
    """HTML (links that open in the page itself, not a new tab as Markdown's do)."""
    identity = access.identity(request)
    if identity.signed_in:
        via = " with Hugging Face" if identity.via == "huggingface" else ""
        # a form, not a link: signing out is a POST (a link could be followed from another site)
        leave = "" if identity.via == "huggingface" else (
            ' · <form method="post" action="signout" style="display:inline">'
            '<button type="submit" id="signout-button">Sign out</button></form>')
        return f"Signed in{via} as <b>{html.escape(identity.name)}</b> ({identity.role}){leave}"
    if access.password_sign_in:
        return ('Not signed in: you may read and diagnose · <a href="signin" target="_self">Sign in</a> '
                "(curators and admins: to curate or administer)")
    return ""


def tabs_for(access: Access, request: gr.Request = None) -> tuple[dict, dict]:
    """(Curate, Admin) shown to the roles that may use them (checked on the server, as every request is)."""
    role = access.identity(request).role
    return gr.update(visible=may(role, "review")), gr.update(visible=may(role, "audit"))


def audit(access: Access, request: gr.Request = None) -> tuple:
    """(message, users, audit records newest first) for an admin."""
    identity = allow(access, request, "audit")
    users = [[u.name, u.role, "password" if u.password_hash else "Hugging Face", u.added]
             for u in sorted(access.users.users().values(), key=lambda u: u.name)]
    records, unreadable = access.audit.records()
    rows = [[r.at.replace("T", " "), r.actor, r.action, r.detail] for r in reversed(records[-SHOWN_RECORDS:])]
    message = (f"{len(records):,} audit records (audit.jsonl in the state folder), newest first; shown to "
               f"{identity.name}.")
    if unreadable:
        message += f" **{unreadable} line(s) could not be read** (cut short or edited by hand)."
    return message, users, rows


def build_tab(access: Access) -> None:
    gr.Markdown("Users are managed with `python -m app users add|remove|list` on the server.")
    show = gr.Button("Show users and audit log", elem_id="admin-show")
    message = gr.Markdown("", elem_id="admin-message")
    users = gr.Dataframe(headers=USER_HEADERS, label="Users", interactive=False, elem_id="admin-users")
    records = gr.Dataframe(headers=AUDIT_HEADERS, label="Audit log", interactive=False, wrap=True,
                           elem_id="admin-audit", max_height=400)
    show.click(bind(audit, access), None, [message, users, records], api_name="audit")
