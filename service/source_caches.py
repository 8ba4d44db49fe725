"""What a start derives from the sources alone, not from the graph: disease identity (MONDO's tables
with their name indexes), the HPO's annotation profiles, and the translator of the HPO's translations.

Each is derived once per release and kept in the cache folder in the form it is used, so a restart
only reads it back. On a start that finds them missing (a first start, a new release) they are derived
in a process of their own, beside the graph build, where a second core does that work while the build
holds the first; the start then reads what that process left. Should it fail, the start derives them
itself: nothing is lost but time.
"""

from __future__ import annotations

import multiprocessing
from dataclasses import dataclass

from fpkg.config import Settings
from identity.mondo import Mondo
from kg_dump.build import mondo_folder
from kg_dump.hpo_profiles import HpoProfiles, load_hpo_profiles, profiles_path
from kg_dump.sources import HPO_TRANSLATIONS, folder_of, hpo_folder
from kg_dump.translations import load_translations
from service.languages import Translator


@dataclass
class SourceCaches:
    mondo: Mondo
    hpo: HpoProfiles
    translator: Translator


def missing(settings: Settings) -> bool:
    """Whether a start would derive any of them: MONDO's indexes or the HPO's profiles are not in the
    cache (the translator follows the profiles' release)."""
    if not Mondo.cache_path(mondo_folder(settings), settings.cache_dir).is_file():
        return True
    return settings.with_hpo and not profiles_path(hpo_folder(settings), settings.cache_dir).is_file()


def read(settings: Settings) -> SourceCaches:
    """The three, from the cache (derived here when missing)."""
    mondo = Mondo.load_cached(mondo_folder(settings), settings.cache_dir)
    hpo = load_hpo_profiles(hpo_folder(settings), settings.cache_dir) if settings.with_hpo else HpoProfiles.empty()
    translator = Translator.cached(load_translations(folder_of(settings, HPO_TRANSLATIONS), settings.cache_dir),
                                   hpo, settings.cache_dir)
    return SourceCaches(mondo, hpo, translator)


def _derive(settings: Settings) -> None:
    read(settings)  # each loader writes what it derives into the cache


class Deriving:
    """The derivation running in a process of its own; `wait()` before reading the caches."""

    def __init__(self, settings: Settings):
        # spawned, not forked: the starting process holds threads (the graph store's, the Hub probe)
        self.process = multiprocessing.get_context("spawn").Process(target=_derive, args=(settings,),
                                                                    name="fpkg-derive-sources", daemon=True)
        self.process.start()

    def wait(self) -> None:
        self.process.join()
