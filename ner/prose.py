"""Synthetic clinical prose for NER training, written by rules from public vocabularies.

The corpus is a few templates, so a model trained on it tags by position and by capital
letters: on real letters and reports it took 'Heterozygous', 'Exome', a correspondent's
surname and 'Ward' for entities. These descriptions are laid out as clinicians, labs and
parents write (letters, lab reports, ward notes, examination notes, referral forms, lay
questions, abstracts, team summaries, discharge summaries, bullet lists, messages, search
queries), with the words around the entities being the ordinary words of that prose, which
stay outside any entity. Entity strings come from the HPO release (facial phenotype labels
and synonyms, disease names, gene symbols), from HGVS rules and from lists written here;
nothing comes from the corpus's dev or test split or from any evaluation file.

Span conventions as in the corpus: articles, 'heterozygous', '(het)', 'de novo' and
classifications are outside the span; an age in years is the number alone.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache

from fpkg.variant_keys import AMINO_ACIDS
from ner.augment import Piece, to_sentence, typo
from ner.corpus import Sentence
from ner.vocabulary import NECK_ROOT, hpo_layer, lineages

# Where dysmorphology findings live (face with the orbital region, skull, outer ear, the eyes'
# placement); other facial terms (eye, hearing) are drawn less often, and only those that
# annotate several diseases.
DYSMORPHOLOGY_ROOTS = ("HP:0000271", "HP:0000929", "HP:0000356", "HP:0100886")
DYSMORPHOLOGY_SHARE = 0.75
_GENERIC = re.compile(r"\b(?:abnormal|abnormality|anomaly|morphology|of the|neck|syndrome|disease|sequence)\b|[(),/]",
                      re.IGNORECASE)
_COUNT_NOUNS = ("eyebrow", "eyelash", "ear", "eye", "fissure", "nostril", "incisor", "lip", "cheek", "fold", "crease")
_VOWEL = re.compile(r"[aeiouAEIOU]")

SURNAMES = ("Smith", "Patel", "Okafor", "Nguyen", "Kowalski", "Murphy", "Rossi", "Garcia", "Haddad", "Jensen",
            "Tanaka", "Oduya", "Fischer", "Brennan", "Khan", "Silva", "Novak", "Lindqvist", "Morgan", "Chen",
            "Dubois", "Evans", "Achterberg", "Yilmaz", "Mensah", "Kaur", "O'Neill", "Petrov", "Walsh", "Reyes")
FIRST_NAMES = ("Sarah", "James", "Amira", "Tom", "Priya", "Lukas", "Grace", "Omar", "Hannah", "Mateo", "Zoe",
               "Ravi", "Ella", "Noah", "Fatima", "Jack", "Mia", "Ivan", "Chloe", "Kwame")
PLACES = ("St Mary's Hospital", "the Royal Infirmary", "Children's Hospital", "University Hospital",
          "Ward 7", "Ward 12B", "the Regional Genetics Service", "Mol Genet Lab", "NICU", "Outpatients")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December", "Jan", "Mar", "Sept", "Nov")
ETHNICITIES = ("Turkish", "Japanese", "Chinese", "Korean", "Indian", "Pakistani", "Bangladeshi", "Arab", "Saudi",
               "Egyptian", "Moroccan", "Nigerian", "Ghanaian", "Somali", "Ethiopian", "Brazilian", "Mexican",
               "Hispanic", "Latino", "Caucasian", "White British", "European", "Italian", "Polish", "Dutch",
               "German", "French", "Spanish", "Greek", "Iranian", "Israeli", "Ashkenazi Jewish", "Vietnamese",
               "Filipino", "Thai", "Malay", "African American", "Afro-Caribbean", "Irish", "Roma")
CLASSES = ("pathogenic", "likely pathogenic", "class 5", "class 4", "a VUS", "ACMG class 5")
ZYGOSITY = ("heterozygous", "homozygous", "de novo heterozygous", "hemizygous", "compound heterozygous")
METHODS = ("Exome sequencing", "Trio exome", "WGS", "Whole genome sequencing", "Gene panel", "Array CGH",
           "Sanger sequencing", "Targeted NGS panel", "MLPA", "Microarray")
SEXES = (("male", "boy", "M", "man", "he", "his", "son"), ("female", "girl", "F", "woman", "she", "her", "daughter"))
# Findings outside the face, written among the facial ones and left untagged, as the corpus's
# convention has it; and sentences of clinical prose that name no entity, or name one in a
# sentence about something else ('{gene}', '{disease}' are filled in and tagged).
OTHER_FINDINGS = ("short stature", "developmental delay", "global developmental delay", "intellectual disability",
                  "hypotonia", "seizures", "epilepsy", "feeding difficulties", "failure to thrive", "obesity",
                  "congenital heart disease", "an atrial septal defect", "a VSD", "pulmonary stenosis",
                  "patent ductus arteriosus", "syndactyly", "clinodactyly", "brachydactyly", "postaxial polydactyly",
                  "camptodactyly", "broad thumbs", "small hands", "scoliosis", "joint hypermobility",
                  "pectus excavatum", "webbed neck", "short neck", "hypospadias", "cryptorchidism", "umbilical hernia",
                  "inguinal hernia", "cafe-au-lait macules", "eczema", "hirsutism", "autism", "ADHD", "speech delay",
                  "absent speech", "sleep disturbance", "constipation", "reflux", "renal cysts", "hydronephrosis",
                  "a horseshoe kidney", "hearing aids", "recurrent infections", "hypoglycaemia", "macroorchidism",
                  "overgrowth", "tall stature", "ataxia", "regression", "hand flapping", "a happy demeanour")
FILLERS = (
    "Pregnancy was uncomplicated and delivery was at term.", "Birth weight was on the 9th centile.",
    "Parents are well and non-consanguineous.", "There is no relevant family history.",
    "Growth: weight and height on the 25th centile.", "Hearing and vision screening were normal.",
    "Echo and renal ultrasound are booked.", "We discussed the result with the family in clinic today.",
    "Genetic counselling was provided and cascade testing offered.", "Parental samples have been requested.",
    "This variant is absent from population databases.", "The variant was confirmed by Sanger sequencing.",
    "Segregation studies are in progress.", "Consent for photographs was obtained.",
    "Previous microarray and fragile X testing were normal.", "Karyotype 46,XX.", "Karyotype 46,XY.",
    "Reviewed with the consultant on the ward round.", "Follow-up in 6 months.", "Seen with Mum and Dad.",
    "The report was sent to the GP and the referring paediatrician.", "Mean coverage 120x; no CNVs detected.",
    "Pathogenic variants in {gene} cause {disease}.", "Loss-of-function of {gene} is a known mechanism.",
    "{disease} was discussed as a differential.", "The family were given written information about {disease}.",
    "No other variants of note were found in {gene}.", "Consistent with the clinical impression.",
    "Impression: syndromic diagnosis likely.", "Clinical details supplied by the referrer.",
    "Obs stable overnight.", "Bloods sent this morning.", "Nil by mouth from 02:00.", "Mum and Dad at the bedside.",
    "Bleep the registrar if concerned.", "Father is well; mother has similar features.", "Cardiology review requested.",
    "Reviewed by the SHO at 03:30.", "Dietitian and SALT involved.", "Discussed with Dr {name} in Neurology.",
    "Sequencing by a commercial laboratory (Invitae).", "Panel v3.2 (114 genes).",
    "Requested via the Genomic Medicine Service.",
)
_BASES = "ACGT"
_AMINO = tuple(name for name in AMINO_ACIDS if name not in ("Sec", "Ter"))  # the twenty of the code


@dataclass(frozen=True)
class ProseVocabulary:
    dysmorphic: tuple[str, ...]  # facial HPO labels and synonyms short enough to be written in prose
    other_phenotypes: tuple[str, ...]
    diseases: tuple[str, ...]
    genes: tuple[str, ...]


@cache
def hpo_vocabulary() -> ProseVocabulary:
    """The vocabulary of the HPO release the graph is built from."""
    layer = hpo_layer()
    uses = Counter(hpo_id for _, hpo_id, _ in layer.disease_phenotypes)
    return vocabulary_from(layer.phenotypes, uses, layer.diseases.values(), layer.genes)


def vocabulary_from(phenotypes: Iterable[dict], uses: Mapping[str, int], disease_names: Iterable[str],
                    gene_symbols: Iterable[str], min_uses: int = 5) -> ProseVocabulary:
    """Phenotype names a clinician would write (no 'Abnormality of ...', no neck terms), split
    into dysmorphology terms and other facial terms used by ``min_uses`` diseases or more;
    disease names without OMIM's comma forms ('Cleft palate, isolated') and series numbers."""
    phenotypes = list(phenotypes)
    lineage_of = lineages(phenotypes)
    dysmorphic, other = set(), set()
    for term in phenotypes:
        lineage = lineage_of(term["hpo_id"])
        if NECK_ROOT in lineage:
            continue
        if lineage & set(DYSMORPHOLOGY_ROOTS):
            kept = dysmorphic
        elif uses.get(term["hpo_id"], 0) >= min_uses:
            kept = other
        else:
            continue
        kept.update(name for name in (term["name"], *term["synonyms"])
                    if len(name.split()) <= 5 and name.isascii() and not _GENERIC.search(name))
    diseases = {re.sub(r"\s+\d+[A-Z]?$", "", n) for n in disease_names if "," not in n and ";" not in n}
    genes = {g for g in gene_symbols if re.fullmatch(r"[A-Z][A-Z0-9-]{1,9}", g)}
    return ProseVocabulary(tuple(sorted(dysmorphic)), tuple(sorted(other - dysmorphic)), tuple(sorted(diseases)),
                           tuple(sorted(genes)))


def prose(count: int, vocabulary: ProseVocabulary, seed: int = 0) -> list[Sentence]:
    """``count`` synthetic descriptions, styles drawn in turn at random."""
    rng = random.Random(seed)
    sentences = []
    for i in range(count):
        draw = _Draw(vocabulary, rng)
        style = rng.choice(STYLES)
        pieces = _with_fillers(style(draw), draw)
        if style in _LOWER_OFTEN and rng.random() < 0.5:
            pieces = [(text if kind == "MUTATION" else text.lower(), kind) for text, kind in pieces]
        sentences.append(to_sentence(pieces, f"prose:{style.__name__.lstrip('_')}:{i + 1}"))
    return sentences


def _with_fillers(pieces: list[Piece], draw: _Draw) -> list[Piece]:
    """Up to two prose sentences inserted after sentence ends ('. ')."""
    for _ in range(draw.rng.choice((0, 1, 1, 2))):
        ends = [i + 1 for i, (text, kind) in enumerate(pieces) if kind is None and text.endswith(". ")]
        if ends:
            at = draw.pick(ends)
            pieces = pieces[:at] + draw.filler() + [(" ", None)] + pieces[at:]
    return pieces


class _Draw:
    """Random mentions for one patient, in the forms free text uses."""

    def __init__(self, vocabulary: ProseVocabulary, rng: random.Random) -> None:
        self.vocabulary, self.rng = vocabulary, rng
        self.sex = rng.choice(SEXES)
        self.gene_symbol = rng.choice(vocabulary.genes)

    def pick(self, options):
        return self.rng.choice(options)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def name(self) -> str:
        return f"{self.pick(FIRST_NAMES)} {self.pick(SURNAMES)}" if self.chance(0.5) else self.pick(SURNAMES)

    def date(self) -> str:
        day, month, year = self.rng.randint(1, 28), self.rng.randint(1, 12), self.rng.randint(2015, 2026)
        return self.pick((f"{day:02d}/{month:02d}/{year}", f"{day} {self.pick(MONTHS)} {year}",
                          f"{year}-{month:02d}-{day:02d}"))

    # --- entities ---------------------------------------------------------------------------
    def age(self) -> list[Piece]:
        """An age with the words around it. Only the number of '20 months' is tagged: the label set
        has no I-AGE (the corpus writes ages as one word); the age rule gives the whole span."""
        n = self.rng.randint(1, 17)
        months = self.rng.randint(2, 23)
        return self.pick((
            [(f"{n}-year-old", "AGE")], [(f"{n}yo", "AGE")], [(f"{n}y", "AGE")],
            [(str(n), "AGE"), (" years old", None)], [(str(n), "AGE"), (" yrs", None)],
            [(f"{months}-month-old", "AGE")], [(str(months), "AGE"), (" months old", None)],
            [(f"{months}mo", "AGE")], [(str(n), "AGE"), (" y/o", None)],
        ))

    def sex_noun(self) -> Piece:
        return self.pick(self.sex[:2] + self.sex[3:4]), "GENDER"

    def sex_letter(self) -> Piece:
        return self.sex[2], "GENDER"

    def pronoun(self, capital: bool = False) -> str:
        word = self.sex[4]
        return word.capitalize() if capital else word

    def possessive(self) -> str:
        return self.sex[5]

    def child(self) -> str:
        return self.sex[6]

    def race(self) -> Piece:
        return self.pick(ETHNICITIES), "RACE"

    def gene(self) -> Piece:
        symbol = self.gene_symbol
        return (symbol.lower() if any(c.isdigit() for c in symbol) and self.chance(0.25) else symbol), "GENE"

    def disease(self) -> Piece:
        name = self.pick(self.vocabulary.diseases)
        if name.endswith(" syndrome") and self.chance(0.25):  # '?Noonan', 'typical Sotos', 'WSS'
            name = abbreviation(name) if self.chance(0.4) else name.removesuffix(" syndrome")
        return name, "DISEASE"

    def disease_context(self) -> list[Piece]:
        """A disease as it is written beside other things: its gene in brackets, a second
        disease to tell it from, the next words of the note; only the names are tagged."""
        return self.pick((
            [self.disease()], [self.disease()],
            [self.disease(), (" (", None), self.gene(), (f"{self.pick(('', ' gene', ' variant'))})", None)],
            [self.disease(), (f" {self.pick(('or', 'vs', 'versus', 'and'))} ", None), self.disease()],
            [(f"{self.pick(('suggestive of', 'likely', 'differential', 'query', 'probable'))} ", None),
             self.disease()],
            [self.disease(), (f"{self.pick((', karyotype sent', ' - ask genetics', ', confirmed', ' (clinical)'))}",
                              None)],
        ))

    def filler(self) -> list[Piece]:
        """A sentence of clinical prose, its gene or disease (if any) tagged."""
        pieces: list[Piece] = []
        for part in re.split(r"(\{gene\}|\{disease\})", self.pick(FILLERS).replace("{name}", self.pick(SURNAMES))):
            if part == "{gene}":
                pieces.append(self.gene())
            elif part == "{disease}":
                pieces.append(self.disease())
            elif part:
                pieces.append((part, None))
        return pieces

    def mutation(self) -> Piece:
        rng = self.rng
        pos = rng.randint(12, 7800)
        ref, alt = rng.sample(_BASES, 2)
        aa_pos = pos // 3 + 1
        aa1, aa2 = rng.sample(_AMINO, 2)
        nucleotide = self.pick((
            f"c.{pos}{ref}>{alt}", f"c.{pos}del", f"c.{pos}_{pos + rng.randint(1, 9)}del", f"c.{pos}dup",
            f"c.{pos}del{ref}", f"c.{pos}+{rng.randint(1, 5)}{ref}>{alt}", f"c.{pos}-{rng.randint(1, 3)}{ref}>{alt}",
            f"c.{pos}_{pos + 1}ins{ref}{alt}", f"c.{pos}dup{ref}",
        ))
        protein = self.pick((f"p.{aa1}{aa_pos}{aa2}", f"p.({aa1}{aa_pos}{aa2})", f"p.{aa1}{aa_pos}*",
                             f"p.{aa1}{aa_pos}Ter", f"p.{aa1}{aa_pos}{aa2}fs*{rng.randint(2, 40)}",
                             f"p.({aa1}{aa_pos}{aa2}fs*{rng.randint(2, 40)})"))
        transcript = f"NM_{rng.randint(1000, 999999):06d}.{rng.randint(1, 9)}:"
        return self.pick((
            nucleotide, f"{nucleotide} ({protein})", f"{transcript}{nucleotide}",
            f"{transcript}{nucleotide} ({protein})",
            f"{nucleotide} {protein}", protein, f"exon {rng.randint(2, 30)} deletion",
            f"deletion of exons {rng.randint(2, 9)}-{rng.randint(10, 20)}",
        )), "MUTATION"

    def phenotype(self) -> Piece:
        source = self.vocabulary.dysmorphic if self.chance(DYSMORPHOLOGY_SHARE) else self.vocabulary.other_phenotypes
        text = self.pick(source)
        if self.chance(0.8):
            text = text[0].lower() + text[1:]
        words = text.split(" ")
        if words[-1].lower() in _COUNT_NOUNS and self.chance(0.5):
            words[-1] += "s"
        if self.chance(0.06):
            words = typo(words, self.rng)
        return " ".join(words), "FACIAL_PHENOTYPE"

    def phenotypes(self, low: int = 2, high: int = 5, joiner: str = ", ", articles: bool = False) -> list[Piece]:
        pieces: list[Piece] = []
        count = self.rng.randint(low, high)
        for i in range(count):
            if i:
                last = i == count - 1 and joiner == ", " and self.chance(0.5)
                pieces.append((" and " if last else joiner, None))
            phenotype = (self.pick(OTHER_FINDINGS), None) if self.chance(0.2) else self.phenotype()
            if articles and phenotype[1] and self.chance(0.3) and not phenotype[0].endswith("s"):
                pieces.append(("an " if _VOWEL.match(phenotype[0][0]) else "a ", None))
            pieces.append(phenotype)
        return pieces

    def variant_clause(self) -> list[Piece]:
        """'a heterozygous pathogenic variant c.X (p.Y) in GENE', zygosity and class outside."""
        zygosity = self.pick(ZYGOSITY)
        return self.pick((
            [(f"a {zygosity} variant ", None), self.mutation(), (" in ", None), self.gene()],
            [(f"a {zygosity} {self.pick(CLASSES[:3])} variant in ", None), self.gene(), (", ", None), self.mutation()],
            [self.gene(), (" ", None), self.mutation(), (" (het)", None)],
            [self.gene(), (" ", None), self.mutation(), (f", {zygosity}, {self.pick(CLASSES)}", None)],
            [(f"{zygosity} ", None), self.gene(), (" variant ", None), self.mutation()],
        ))


def abbreviation(name: str) -> str:
    """The initials clinicians write for a syndrome: 'Wiedemann-Steiner syndrome' -> 'WSS'."""
    return "".join(word[0].upper() for word in re.split(r"[\s-]+", name) if word and word[0].isalpha())


# --- styles --------------------------------------------------------------------------------

def _clinic_letter(d: _Draw) -> list[Piece]:
    return [
        (f"Dear Dr {d.pick(SURNAMES)}, Re: {d.name()}, DOB {d.date()}. Thank you for referring this ", None),
        *d.age(), (" ", None), d.sex_noun(),
        (f" whom I saw in clinic with {d.possessive()} parents on {d.date()}. ", None),
        (f"On examination {d.pronoun()} has ", None), *d.phenotypes(articles=True), (". ", None),
        (f"{d.pick(METHODS)} identified ", None), *d.variant_clause(), (", consistent with ", None),
        *d.disease_context(),
        (f". Yours sincerely, Dr {d.pick(SURNAMES)}, Consultant Clinical Geneticist", None),
    ]


def _lab_report(d: _Draw) -> list[Piece]:
    return [
        (f"{d.pick(('GENETIC TEST REPORT', 'Molecular Genetics Report', 'Laboratory report'))}. Patient: {d.name()}. "
         f"Sample received {d.date()}. Referral reason: ", None), *d.phenotypes(1, 3), (". Result: ", None),
        (f"{d.pick(ZYGOSITY).capitalize()} {d.pick(CLASSES[:3])} variant detected. Gene: ", None), d.gene(),
        (". Variant: ", None), d.mutation(), (f". Zygosity: {d.pick(ZYGOSITY)}. Classification: "
                                              f"{d.pick(('Pathogenic', 'Likely pathogenic', 'Class 5'))} "
                                              f"(ACMG PVS1, PM2). Method: {d.pick(METHODS)}. Interpretation: "
                                              f"Consistent with a diagnosis of ", None), d.disease(),
        (f". Authorised by {d.name()}, Clinical Scientist.", None),
    ]


def _ward_note(d: _Draw) -> list[Piece]:
    return [
        (f"{d.pick(PLACES)} {d.pick(('ward round', 'handover', 'r/v', 'Mon'))}: pt ", None), *d.age(), (" ", None),
        d.sex_letter(), (f", {d.pick(('day 3 post-op', 'feeding well', 'obs stable', 'apyrexial'))}. O/E ", None),
        *d.phenotypes(), (". Known ", None), d.gene(), (" ", None), d.mutation(),
        (f" (het). Plan: {d.pick(('genetics r/v', 'echo', 'discuss at MDT', 'SALT referral'))}, "
         f"d/w Dr {d.pick(SURNAMES)}.", None),
    ]


def _exam_note(d: _Draw) -> list[Piece]:
    negated = d.phenotype()
    return [
        (f"{d.pick(('Dysmorphology exam', 'Examination', 'Clinical findings', 'O/E'))}: ", None),
        *d.phenotypes(3, 7, joiner=d.pick((", ", "; "))), (f". {d.pick(('No', 'There was no', 'Without'))} ", None),
        negated, (f". OFC on the {d.rng.randint(2, 98)}th centile, {d.pick(('normal', 'mild'))} tone. ", None),
        (f"Photographs taken with consent by {d.pick(SURNAMES)}.", None),
    ]


def _referral_form(d: _Draw) -> list[Piece]:
    sep = d.pick((" | ", "; ", " / "))
    return [
        (f"Name: {d.name()}{sep}DOB: {d.date()}{sep}Age: ", None), *d.age(), (f"{sep}Sex: ", None), d.sex_letter(),
        (f"{sep}Ethnicity: ", None), d.race(), (f"{sep}Referrer: Dr {d.pick(SURNAMES)}{sep}Features: ", None),
        *d.phenotypes(), (f"{sep}Genetic results: ", None), d.gene(), (" ", None), d.mutation(),
        (f"{sep}Question: ?", None), *d.disease_context(),
    ]


def _parent_question(d: _Draw) -> list[Piece]:
    return [
        (f"my {d.child()} is ", None), *d.age(), (" and has ", None), *d.phenotypes(articles=True),
        (f". the doctors found a change in {d.possessive()} ", None), d.gene(), (" gene (", None), d.mutation(),
        (f"). {d.pick(('could it be', 'is this', 'does that mean'))} ", None), d.disease(),
        (f"? {d.pick(('we are so worried', 'thanks for any help', 'nobody explained anything'))}", None),
    ]


def _abstract(d: _Draw) -> list[Piece]:
    return [
        ("We report a ", None), *d.age(), (" ", None), d.race(), (" ", None), d.sex_noun(), (" with ", None),
        d.disease(), (" caused by a novel de novo ", None), d.gene(), (" variant, ", None), d.mutation(),
        (f". {d.pronoun(True)} presented with ", None), *d.phenotypes(), (". This case expands the phenotypic "
                                                                          "spectrum of the disorder.", None),
    ]


def _team_summary(d: _Draw) -> list[Piece]:
    return [
        (f"MDT {d.date()}: ", None), *d.age(), (" ", None), d.sex_letter(), (", ", None), d.race(),
        (". Features: ", None), *d.phenotypes(), (f". {d.pick(METHODS)}: ", None), d.gene(), (" ", None),
        d.mutation(), (f", {d.pick(CLASSES)}. Dx: ", None), *d.disease_context(),
        (f" {d.pick(('confirmed', 'likely', 'not excluded'))}. Actions: letter to GP, cascade testing.", None),
    ]


def _discharge_summary(d: _Draw) -> list[Piece]:
    return [
        ("Discharge summary. Diagnosis: ", None), *d.disease_context(), (f". {d.pick(PLACES)}, {d.date()}. ", None),
        *d.age(), (" ", None), d.sex_noun(), (" admitted with feeding difficulties. Noted ", None),
        *d.phenotypes(), (". Genetics: ", None), *d.variant_clause(),
        (f". Follow-up with Dr {d.pick(SURNAMES)}.", None),
    ]


def _bullet_list(d: _Draw) -> list[Piece]:
    mark = d.pick(("- ", "* ", "• "))
    pieces: list[Piece] = []
    for _ in range(d.rng.randint(3, 6)):
        pieces += [(mark, None), d.phenotype(), (" ", None)]
    return [*pieces, (mark, None), d.gene(), (" ", None), d.mutation()]


def _message(d: _Draw) -> list[Piece]:
    return [
        (f"{d.pick(('hi', 'Hi'))} {d.pick(FIRST_NAMES)}, pls see ", None), *d.age(), (" ", None), d.sex_letter(),
        (" w ", None), *d.phenotypes(2, 4), (", ", None), d.gene(), (" var ", None), d.mutation(), (" ?", None),
        *d.disease_context(), (f" {d.pick(('thx', 'cheers', 'ddx?', 'any thoughts'))}", None),
    ]


def _search_query(d: _Draw) -> list[Piece]:
    return d.pick((
        [d.gene(), (" ", None), *d.phenotypes(1, 3, joiner=" ")],
        [*d.phenotypes(2, 3, joiner=" "), (" syndrome", None)],
        [d.disease(), (" facial features", None)],
        [("which syndrome has ", None), *d.phenotypes(2, 3)],
    ))


STYLES: tuple[Callable[[_Draw], list[Piece]], ...] = (
    _clinic_letter, _lab_report, _ward_note, _exam_note, _referral_form, _parent_question, _abstract,
    _team_summary, _discharge_summary, _bullet_list, _message, _search_query,
)
_LOWER_OFTEN = (_parent_question, _message, _search_query, _ward_note)
