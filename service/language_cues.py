"""The cues of negation, family history and hedges in each language the HPO is translated into, written into English
cue words where they stand, so that the one reader (service/reader.py, ner/context.py) reads their scope: "pas de
déficience intellectuelle" -> "no Intellectual disability", "无智力障碍" -> "no Intellectual disability", "小頭なし" ->
"Microcephaly absent", "sa mère a une fente palatine" -> "her mother has ... Cleft palate".

Written from each language's clinical usage (examination findings as clinicians of that language write them); the
patterns run on the text with its accents stripped (service/languages.py), after the HPO's terms were put into English.
"""

from __future__ import annotations

import re

_RELATIVES = {
    "fr": {"mere": "mother", "pere": "father", "soeur": "sister", "frere": "brother", "soeurs": "sisters",
           "freres": "brothers", "parents": "parents", "fils": "son", "tante": "aunt", "oncle": "uncle",
           "cousin": "cousin", "cousine": "cousin", "grand-mere": "grandmother", "grand-pere": "grandfather"},
    "es": {"madre": "mother", "padre": "father", "hermano": "brother", "hermana": "sister", "hijo": "son",
           "hija": "daughter", "abuela": "grandmother", "abuelo": "grandfather", "tio": "uncle", "tia": "aunt",
           "primo": "cousin", "prima": "cousin", "padres": "parents"},
    "pt": {"mae": "mother", "pai": "father", "irmao": "brother", "irma": "sister", "filho": "son",
           "filha": "daughter", "avo": "grandparent", "tio": "uncle", "tia": "aunt", "primo": "cousin",
           "prima": "cousin", "pais": "parents"},
    "it": {"madre": "mother", "padre": "father", "fratello": "brother", "sorella": "sister", "figlio": "son",
           "figlia": "daughter", "nonna": "grandmother", "nonno": "grandfather", "zio": "uncle", "zia": "aunt",
           "cugino": "cousin", "cugina": "cousin", "genitori": "parents"},
    "de": {"mutter": "mother", "vater": "father", "bruder": "brother", "schwester": "sister", "sohn": "son",
           "tochter": "daughter", "grossmutter": "grandmother", "grossvater": "grandfather", "onkel": "uncle",
           "tante": "aunt", "cousin": "cousin", "cousine": "cousin", "eltern": "parents"},
    "zh": {"母亲": "mother", "父亲": "father", "哥哥": "brother", "弟弟": "brother", "兄弟": "brothers",
           "姐姐": "sister", "妹妹": "sister", "姐妹": "sisters", "儿子": "son", "女儿": "daughter",
           "外祖母": "grandmother",
           "祖母": "grandmother", "奶奶": "grandmother", "外婆": "grandmother", "外祖父": "grandfather",
           "祖父": "grandfather", "爷爷": "grandfather", "外公": "grandfather", "父母": "parents"},
    "ja": {"母親": "mother", "父親": "father", "兄": "brother", "弟": "brother", "姉": "sister", "妹": "sister",
           "息子": "son", "娘": "daughter", "祖母": "grandmother", "祖父": "grandfather", "両親": "parents",
           "母": "mother", "父": "father"},
}
# (pattern, English cue), in order: longer cues first
_CUES: dict[str, list[tuple[str, str]]] = {
    "fr": [(r"\bn[e'’]\s*(?:a|ont|presente|presentent)\s+pas\s+d[e'’]\s*", "has no "),
           (r"\bpas\s+d[e'’]\s*", "no "), (r"\baucun(?:e|s|es)?\s+(?:d[e'’]\s*)?", "no "),
           (r"\babsence\s+d[e'’]\s*", "absence of "), (r"\bsans\b", "without"), (r"\bni\b", "nor"),
           (r"\bnon\s+(?:retrouvee?s?|observee?s?|vue?s?)\b", "not found"), (r"\babsente?s?\b", "absent"),
           (r"\bantecedents?\s+familiaux\s+d[e'’]\s*", "family history of "),
           (r"\bsuspicion\s+d[e'’]\s*", "suspected "), (r"\bsuspecte?e?s?\b", "suspected"),
           (r"\bpresent(?:ant|e|ait)\b", "with")],
    "es": [(r"\bno\s+(?:presenta|presentaba|tiene|hay|muestra|se\s+observa[n]?|se\s+objetiva[n]?)\b", "no"),
           (r"\bsin\b", "without"), (r"\bausencia\s+de\b", "absence of"), (r"\bni\b", "nor"),
           (r"\bningun[oa]?\b", "no"), (r"\bausente?s?\b", "absent"),
           (r"\bantecedentes\s+familiares\s+de\b", "family history of"), (r"\bsospecha\s+de\b", "suspected"),
           (r"\bposible\b", "possible"), (r"\bpresenta(?:ba)?\b", "has")],
    "pt": [(r"\bnao\s+(?:apresenta|tem|ha|mostra)\b", "no"), (r"\bsem\b", "without"),
           (r"\bausencia\s+de\b", "absence of"), (r"\bnenhum[a]?\b", "no"), (r"\bnem\b", "nor"), (r"\bnao\b", "not"),
           (r"\bausente?s?\b", "absent"), (r"\bhistoria\s+familiar\s+de\b", "family history of"),
           (r"\bsuspeita\s+de\b", "suspected"), (r"\bpossivel\b", "possible"), (r"\bapresenta\b", "has")],
    "it": [(r"\bnessun[oa]?\b", "no"), (r"\bsenza\b", "without"), (r"\bassenza\s+di\b", "absence of"),
           (r"\bnon\s+si\s+osserva(?:no)?\b", "not seen"), (r"\bnon\b", "not"), (r"\bassent[ei]\b", "absent"),
           (r"\bfamiliarita\s+per\b", "family history of"), (r"\bsospett[oaie]\b", "suspected"),
           (r"\bpossibile\b", "possible"), (r"\bpresenta(?:va)?\b", "has")],
    "de": [(r"\bkein(?:e|en|er|em|es)?\s+hinweis\s+auf\b", "no evidence of"), (r"\bkein(?:e|en|er|em|es)?\b", "no"),
           (r"\bohne\b", "without"), (r"\bweder\b", "neither"), (r"\bnoch\b", "nor"), (r"\bnicht\b", "not"),
           (r"\bfehlend(?:e|er|en|es)?\b", "absent"), (r"\bfamilienanamnese\b", "family history"),
           (r"\bverdacht\s+auf\b", "suspected"), (r"\bmoglich(?:e|er|en)?\b", "possible"),
           (r"\bzeigt\b", "shows")],
    "zh": [(r"未发现|未见|没有|无明显|无|否认", " no "), (r"不伴有|不伴", " without "), (r"家族史", " family history "),
           (r"疑似|怀疑", " suspected "), (r"可能", " possible ")],
    "ja": [(r"(?:は|を|も)?(?:認めない|認めず|認められない|認められず)", " not seen "), (r"なし|無し", " absent "),
           (r"家族歴", " family history "), (r"の?疑い", " suspected "), (r"の可能性", " possible "),
           (r"を認める|を認め|あり", " ")],
}


def _relative_pattern(language: str) -> tuple[re.Pattern, dict[str, str]]:
    words = _RELATIVES[language]
    alternatives = "|".join(sorted(map(re.escape, words), key=len, reverse=True))
    if language in ("zh", "ja"):
        return re.compile(f"({alternatives})"), words
    return re.compile(rf"\b({alternatives})\b", re.IGNORECASE), words


COMPILED = {language: [(re.compile(pattern, re.IGNORECASE), english) for pattern, english in cues]
            for language, cues in _CUES.items()}
RELATIVES = {language: _relative_pattern(language) for language in _RELATIVES}


def in_english(text: str, language: str) -> str:
    """`text` with `language`'s cues of negation, family history and hedges written as English cue words."""
    for pattern, english in COMPILED.get(language, ()):
        text = pattern.sub(english, text)
    if language in RELATIVES:
        pattern, words = RELATIVES[language]
        text = pattern.sub(lambda match: f" {words[match.group(1).lower()]} " if language in ("zh", "ja")
                           else words[match.group(1).lower()], text)
    return text


def cue_words() -> list[str]:
    """The English words the cues are written as."""
    return [*(english for cues in _CUES.values() for _, english in cues),
            *(english for words in _RELATIVES.values() for english in words.values())]
