"""Words clinicians and families write for a finding that the HPO's own synonyms (layperson ones included) lack.

Written from common clinical usage (genetics clinic letters, paediatric examination notes) and checked against
hp.obo 2025-01-16: each phrase is one the HPO has no name or synonym for, and each id is the term the phrase means,
no more specific than its words. The finding linker reads them beside the HPO's names, in every form its word
forms give (retrieval/word_forms.py): "sunken chest" also reads "chest sunken", "caved-in chests".
"""

from __future__ import annotations

CLINICAL_SYNONYMS: dict[str, str] = {
    # chest and trunk
    "sunken chest": "HP:0000767", "caved-in chest": "HP:0000767", "hollow chest": "HP:0000767",
    "sunken breastbone": "HP:0000767",
    # skin and joints
    "stretchy skin": "HP:0000974", "overstretchable skin": "HP:0000974", "loose joints": "HP:0001382",
    "lax joints": "HP:0001382", "bendy joints": "HP:0001382", "lentigines": "HP:0001003",
    # growth
    "very tall": "HP:0000098", "tall for age": "HP:0000098", "short for age": "HP:0004322",
    # mouth, teeth, nose
    "big tongue": "HP:0000158", "enlarged tongue": "HP:0000158", "missing teeth": "HP:0009804",
    "pointed teeth": "HP:0000698", "upturned nose": "HP:0000463", "turned-up nose": "HP:0000463",
    # heart
    "narrowed pulmonary valve": "HP:0001642", "narrow pulmonary valve": "HP:0001642",
    "hole in the heart": "HP:0001627",
    # metabolism and sweating
    "low cholesterol": "HP:0003146", "low serum cholesterol": "HP:0003146", "low blood cholesterol": "HP:0003146",
    "low blood glucose": "HP:0001943", "inability to sweat": "HP:0000970", "unable to sweat": "HP:0000970",
    # the face
    "grimacing smile": "HP:0000273",
    # the eyes
    "eye colobomas": "HP:0000589", "upslanting eyes": "HP:0000582", "downslanting eyes": "HP:0000494",
    "upslanted eyes": "HP:0000582", "downslanted eyes": "HP:0000494", "small eyes": "HP:0000568",
    "very small eyes": "HP:0000568",
}
