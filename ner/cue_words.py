"""The cue words of negation, family history, hedges and negative gene tests, in English, as NegEx and ConText
name them: a cue before a finding (preceding), after it (following), phrases that look like a cue but are not
(pseudo) and words that end a cue's scope (termination). Negation starts from negspacy's clinical termset
(NegEx's published lists); the others are written from clinical usage. Other languages' cues are written into
English with their text (service/languages.py), so one list of each serves every language."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Cues:
    preceding: tuple[str, ...] = ()
    following: tuple[str, ...] = ()
    pseudo: tuple[str, ...] = ()
    termination: tuple[str, ...] = ()

    def termset(self) -> dict[str, list[str]]:
        """In negspacy's form."""
        return {"pseudo_negations": list(self.pseudo), "preceding_negations": list(self.preceding),
                "following_negations": list(self.following), "termination": list(self.termination)}


# A turn of the sentence: what ends every kind of cue's scope (besides the clause boundaries that ner/context.py
# draws: a full stop, a semicolon, a colon, a comma that does not continue an "or" list).
TURNS = ("but", "however", "although", "though", "yet", "whereas", "while", "except", "apart from", "aside from",
         "which", "still", "nevertheless")
# ... and what starts affirmed findings after a negation ("no cleft palate, with ptosis"; "no ptosis but has ...")
TERMINATION = (*TURNS, "with", "who has", "who had", "has", "had", "have", "shows", "showed", "presents",
               "presented", "plus", "also", "secondary to")

# NegEx's cues as negspacy's `en_clinical` termset gives them, less those that are no negation in a patient's
# description ("versus", "doubt", "evaluate for", "declined", "rule out": a plan or a hedge, not a finding's absence)
_NOT_NEGATION = {"versus", "doubt", "evaluate for", "symptoms atypical", "declined", "denying", "rule out",
                 "rule him out", "rule her out", "rule patient out", "rule the patient out", "r/o", "ro", "unlikely",
                 "free"}


def negation(clinical: dict[str, list[str]]) -> Cues:
    """NegEx's clinical cues (`clinical`: negspacy's en_clinical termset) with those a dysmorphology note adds."""
    preceding = [cue for cue in clinical["preceding_negations"] if cue not in _NOT_NEGATION]
    preceding += ["absent", "absence of", "lack of", "lacks", "lacking", "nor", "neither", "no evidence of",
                  "no history of", "does not have", "did not have", "has no", "had no", "never had", "excluded"]
    following = [cue for cue in clinical["following_negations"] if cue not in _NOT_NEGATION]
    following += ["absent", "not seen", "not present", "not observed", "not noted", "not found", "not detected",
                  "not identified", "not reported", "ruled out", "excluded", "was excluded", "were excluded",
                  "was negative", "were negative", "is absent", "are absent", "none"]
    pseudo = [*clinical["pseudo_negations"], "no longer", "not only", "without difficulty", "no family history",
              "not ruled out", "not been ruled out", "not be excluded", "not excluded", "cannot be excluded",
              "could not be excluded", "not able to exclude"]
    termination = [*clinical["termination"], *TERMINATION]
    return Cues(tuple(dict.fromkeys(preceding)), tuple(dict.fromkeys(following)), tuple(dict.fromkeys(pseudo)),
                tuple(dict.fromkeys(termination)))


# Said of a relative: "her mother has ptosis", "family history of deafness". Only before the finding: "ptosis
# inherited from his father" is the patient's ptosis.
FAMILY = Cues(
    preceding=("mother", "father", "mom", "dad", "sister", "brother", "sisters", "brothers", "sibling", "siblings",
               "sib", "sibs", "half-sister", "half-brother", "twin", "parent", "parents", "aunt", "aunts", "uncle",
               "uncles", "cousin", "cousins", "grandmother", "grandfather", "grandparent", "grandparents", "son",
               "sons", "daughter", "daughters", "niece", "nephew", "relative", "relatives", "family history of",
               "family history", "in the family", "familial history of"),
    pseudo=("mother's pregnancy", "maternal age", "parents are", "parents were", "born to", "parental consanguinity",
            "consanguineous parents", "no family history", "unaffected mother", "unaffected father",
            "unaffected parents", "inherited from", "from his mother", "from her mother", "from his father",
            "from her father", "from the mother", "from the father"),
    termination=(*TURNS, "the patient", "our patient", "the proband", "the child"))

# Said but not established: "possible hearing loss", "?ptosis", "agenesis of the corpus callosum was suspected".
HEDGE = Cues(
    preceding=("possible", "possibly", "probable", "probably", "suspected", "suspicion of", "suspect", "questionable",
               "query", "queried", "?", "likely", "presumed", "presumptive", "borderline", "equivocal", "may have",
               "might have", "could have", "cannot exclude", "can't exclude", "not excluded", "not ruled out"),
    following=("suspected", "is suspected", "was suspected", "is possible", "was possible", "cannot be excluded",
               "could not be excluded", "not excluded", "not ruled out", "questionable", "?", "is likely",
               "is probable", "to be confirmed", "not confirmed", "is queried", "was queried"),
    termination=(*TURNS, "with", "confirmed", "and has", "and had"))

# A gene tested and found normal is not the patient's gene: "NIPBL-negative", "tested negative for PTPN11",
# "FBN1 sequencing was negative", "no pathogenic variant in TCOF1".
GENE_TESTED_NEGATIVE = Cues(
    preceding=("negative for", "tested negative for", "no variant in", "no variants in", "no pathogenic variant in",
               "no pathogenic variants in", "no mutation in", "no mutations in", "no mutation of", "no variant of",
               "without a variant in", "excluded", "ruled out", "normal"),
    following=("negative", "was negative", "were negative", "testing was negative", "testing were negative",
               "sequencing was negative", "analysis was negative", "was normal", "were normal", "not found",
               "was not found", "were not found", "not detected", "was not detected", "excluded", "was excluded",
               "were excluded", "ruled out", "was ruled out"),
    termination=TERMINATION)
