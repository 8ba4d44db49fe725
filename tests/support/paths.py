"""Where the tests find the repository and their own data, wherever a test file sits."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
TEST_DATA = REPO_ROOT / "tests" / "data"
