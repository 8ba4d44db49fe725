"""`python -m app users add|remove|list`: the users file, edited on the server by its operator.

    python -m app users add alice --role curator      # asks for the password twice
    echo "$PASSWORD" | python -m app users add bot --role viewer --password-stdin
    python -m app users add some-hf-name --role admin --huggingface   # a Space's HF account
    python -m app users remove alice
    python -m app users list

Each change is written to the audit log, with the operating-system account that made it.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Sequence

from accounts.audit import AUDIT_FILE, AuditLog
from accounts.roles import ROLES
from accounts.users_file import UsersFile
from fpkg.config import AccessSettings
from fpkg.errors import InputError


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m app users", description="Manage the app's users.")
    commands = parser.add_subparsers(dest="command", required=True)
    add = commands.add_parser("add", help="add a user, or change one's role and password")
    add.add_argument("name")
    add.add_argument("--role", choices=ROLES, default="viewer")
    how = add.add_mutually_exclusive_group()
    how.add_argument("--password-stdin", action="store_true", help="read the password from standard input")
    how.add_argument("--huggingface", action="store_true",
                     help="a Hugging Face account (signs in with Hugging Face on a Space; no password)")
    remove = commands.add_parser("remove", help="remove a user")
    remove.add_argument("name")
    commands.add_parser("list", help="list users and roles (never passwords)")
    return parser.parse_args(argv)


def read_password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\n")
    password = getpass.getpass("Password: ")
    if getpass.getpass("Again: ") != password:
        raise InputError("The two passwords differ; nothing was changed.")
    return password


def main(argv: Sequence[str], settings: AccessSettings) -> int:
    args = parse_args(argv)
    users = UsersFile(settings.users_file)
    audit = AuditLog(settings.state_dir / AUDIT_FILE)
    actor = f"operator {getpass.getuser()}"
    if args.command == "list":
        for user in sorted(users.users().values(), key=lambda u: u.name):
            print(f"{user.name}\t{user.role}\t{'password' if user.password_hash else 'huggingface'}\t{user.added}")
        return 0
    if args.command == "remove":
        users.remove(args.name)
        audit.record(actor, "user removed", args.name)
        print(f"removed {args.name} from {users.path}")
        return 0
    password = None if args.huggingface else read_password(args.password_stdin)
    known = users.get(args.name.strip())
    user = users.add(args.name, args.role, password)
    audit.record(actor, "user changed" if known else "user added", f"{user.name} role={user.role}")
    print(f"{'changed' if known else 'added'} {user.name} ({user.role}) in {users.path}")
    return 0
