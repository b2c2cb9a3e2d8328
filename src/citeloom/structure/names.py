"""A person's name and a byline: what reads as a name ("Jens Oehlschlägel", "A. B. Smith",
"van der Berg, J."), what does not (a publisher, an office, a title's words), and a byline's
names in order, as Zotero writes them (``Last, First``)."""

from __future__ import annotations

import re
import unicodedata

from citeloom.payload import PARTICLES, family_name, fold

# Words that say an "author" is a publisher, a generator or an office, not a person.
NOT_A_PERSON = re.compile(
    r"\b(journals?|press|publish\w*|office|user|admin\w*|\w*universit\w*|universidad|\w*hochschule|technikum|facultad|fakult\w*|escuela|"
    r"instituto|istituto|departamento|d[ie]partiment\w*|d[ée]partement|former|members?|"
    r"inc|ltd|ag|unit|"
    r"llc|gmbh|corporation|company|society|soci[ée]t[ée]|sociedad|gesellschaft|association|department|institute|editor\w*|"
    r"microsoft|google|ibm|amazon|nvidia|openai|deepmind|facebook|baidu|alibaba|tencent|huawei|"
    r"meta|intel|anthropic|salesforce|bytedance|netflix|yahoo|xerox|siemens|sankt|credit|uc|"
    r"samsung|software|adobe|acrobat|word|latex|tex|writer|unknown|author|owner|springer|"
    r"elsevier|wiley|abstract|introduction|background|keywords|article|review|research|"
    r"open|access|correspondence|email|paper|report|study|edition|volume|chapter|series|"
    r"working|draft|preprint|technical|tech|front|cover|contents|summary|project|"
    # nouns titles are made of ("Heavy Mesons In A Relativistic Model" is not a person)
    r"models?|analys[ie]s|methods?|theory|systems?|learning|networks?|data|approach|"
    r"inference|estimation|regression|evaluation|design|framework|applications?|"
    r"simulations?|optimi[sz]ation|algorithms?|package|statistic\w*|computing|"
    r"computation|dynamics|structures?|effects?|patients?|performance|detection|"
    r"recognition|language|processing|prediction|classification|supplementary|"
    r"errors?|kernels?|chiral|constitutive|disorders?|anxiety|devices|"
    r"material|vignette|manual|guide|notes|lecture|thesis|dissertation|clinic|hospital|"
    r"foundation|cent(?:er|re)|laborator\w*|schools?|colleges?|faculty|team|group|"
    # what a cover prints under a name: a post, a field
    r"lecturers?|assistants?|supervisors?|advis[eo]rs?|sciences?|engineering|informatics|"
    r"reports|area|layout|sketch|biographical|lab|programm?e?s?|titularis|"
    r"information\w*|cancer|medical|memorial|labs|national|"
    # a post or a place printed under a name: "Independent Researcher", "Sagan Fellow",
    # "Federal Reserve Board", "Mountain View"
    r"independent|researchers?|scientists?|scholars?|fellows?|postdoc\w*|students?|"
    r"candidate|board|reserve|bank|view|city|heights|anonymous|blind|see|profile|church|trust|"
    r"rangers?|"
    # a country of two words ("Sri Lanka", an affiliation's last row), a letter's
    # salutation ("Dear Feng Liu"), a web form's buttons ("Create Account", "Quick Links")
    r"lanka|arabia|zealand|africa|kingdom|emirates|states|leone|faso|dear|account|links|business|recommended|intelligence|"
    # a field of study: "Computational Astrophysics, Flatiron Institute"
    r"\w*physics|mathematics|chemistry|economics|medicine|philosophy|linguistics|health|"
    r"geometry|dentistry|"  # ("… Melbourne School of Population and Global Health")
    # a form's labels (Springer's chapter metadata page: "Given Name", "Copyright Year")
    r"given|prefix|suffix|particle|title|book|copyright|year|name|family|address|"
    r"mater|studiorum|"  # Bologna's "Alma Mater Studiorum"
    r"observatoire|observatori[oa]|observator(?:y|ies)|forests|"
    r"hong\s+kong|sha\s+tin|kowloon|avenue|street|road|boulevard|"  # places
    # "Laboratoire d'Immunologie Clinique", "Fraunhofer IAIS", "KU Leuven", "TU Delft"
    r"laboratoire|fraunhofer|leuven|delft|polytechnique|facult[ée])\b",
    re.IGNORECASE)
# Words a name never has: "In", "Of", "The" start title words, not given names.
_FUNCTION_WORDS = frozenset({"in", "on", "of", "the", "for", "and", "with", "to", "from",
                             "an", "at", "by", "via", "using", "towards", "toward", "into",
                             "its", "is", "are", "how", "what", "why", "new", "or",
                             "your", "our", "my", "their",  # a slogan: "Free Your Numbers"
                             "die", "dem", "ein", "eine", "einer", "eines", "für", "über",
                             "mit", "und"})  # German: "Die Optionen des Pakets"
# Titles before a name: "Dr. Jens Oehlschlägel", "Prof. Dr. Kurt Hornik", an assistant
# professor's "Ass. Pro.".
_HONORIFIC = re.compile(r"^(?:(?:dr|prof|professor|mr|mrs|ms|sir|dipl\.-\w+)\.?\s+"
                        r"|(?:ass|asst|assoc|pro)\.\s*)+",  # "Ass. Pro. Ankit Chouhan"
                        re.IGNORECASE)
# A footnote mark: a number or a symbol, "∗)" in some journals (U+FFFD: a symbol the PDF's
# font did not map; ✯ ⋆ ★: LaTeX's \\thanks in some classes).
THANKS = "*†‡§¶∗⁎✯⋆★☯¤‖✉♣♦♥♠?◦⇤˚⇑→⋄◇♢♮♯♭∧▲△▼▽◆"  # (PLOS: ☯ equal contribution, ¤ a present
# address; ✉ Nature; the card suits: IEEE papers that mark affiliations with them; "?": a
# mark its font did not map, "M. Atature?"; "◦": "Ramon Pires ◦"; "⇤", "˚", "⇑" (Elsevier's)
# and "→": stars some fonts map wrongly; "⋄", "♮", "♯", "♭": LaTeX's further footnote symbols;
# "∧": an equal contribution; triangles and a diamond: ACL's affiliation marks, "Lu 2▲")
SYMBOLS = THANKS + "+$"  # "+" and "$" mark affiliations after a name only (PLDI's)
MARKERS = rf"(?:[\d{SYMBOLS}#\ufffd]\)?)"
# A footnote star glued to the "and" after it: "Sinnwell∗and Daniel J. Schaid".
_GLUED_AND = re.compile(rf"[{SYMBOLS}]+(?=and\s)")


def unglue_and(text: str) -> str:
    """``text`` with a footnote mark glued to the next "and" set apart as a space."""
    return _GLUED_AND.sub(" ", text)
# Elsevier's and AIP's affiliation letters: "Migchielsen a,1,∗", "Thane b,d" (a lone
# lower-case letter after a space, or two run together: "Boyer ac"; never glued to the
# name, which ends in one).
_LETTER = r"(?:[a-z]{1,2}\)?)"
# Affiliation marks after a name: "Agyeman-Duah 1*", "Theurer 2,3", "Ball1*",
# "Krishnan a,c,∗,1", "Tomonaga1,∗)".
_AFFIL = re.compile(rf"(?<=[^\W\d_.])(?:\s*{MARKERS}|\s+{_LETTER})"
                    # (a letter glued to a symbol: "Plazas †a ,")
                    rf"(?:\s*,?\s*{MARKERS}|\s*,\s*{_LETTER}|(?<=[{SYMBOLS}]){_LETTER})*"
                    rf"(?=\s*(?:[,·•∙⋅|]|and\b|&|$))")
# A group credited beside the people, last: "Michael Lawrence, Bioconductor Team",
# "…, and the R Core Team". Not a person, and no reason to drop the people before it.
_GROUP_LAST = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s*&\s*)(?:the\s+)?"
                         r"(?:[A-Z][\w.-]*\s+){1,3}(?:Core\s+)?"
                         r"(?:Team|Group|Consortium|Collaboration|Project|Labs?|"
                         r"Laborator(?:y|ies))$"
                         r"|\s*,?\s+and\s+the\s+[\w.-]+\s+team$")  # "…, and the pyradiosky team"
# A country after the last name: "Mark Henning, Germany" (a byline with no institution).
_COUNTRY_LAST = re.compile(
    r"\s*,\s*(?:Germany|France|Italy|Spain|Portugal|Austria|Switzerland|Belgium|"
    r"(?:the\s+)?Netherlands|Denmark|Sweden|Norway|Finland|Iceland|Poland|Hungary|"
    r"Czech\s+Republic|Slovakia|Slovenia|Croatia|Greece|Ireland|England|Scotland|Wales|"
    r"UK|U\.K\.|United\s+Kingdom|USA|U\.S\.A\.|United\s+States|Canada|Mexico|Brazil|"
    r"Argentina|Chile|Colombia|Australia|New\s+Zealand|Japan|China|Korea|India|Israel|"
    r"Singapore|Russia|Turkey|South\s+Africa)\.?$")
# The states' postal codes, but for the two that are family names set in capitals (Ma, Oh).
_US_STATES = frozenset(re.findall(
    r"\w\w", "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MI MN MS MO MT NE "
    "NV NH NJ NM NY NC ND OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC"))
# Cities of two words whose first could open a person's name ("Ann Arbor", "Santa Cruz").
_PLACE_FIRST = (r"(?:San|Santa|Santo|São|Sao|Palo|Ann|Saint|St\.?|Fort|Port|Rio|Hong|Tel|"
                r"Buenos|Kuala|Salt|El|Baton|Cape|Mount|Bad)\s")
# Degrees after a name: "John J. Smith, B.A.", "Jane Doe, MD, PhD", "Brian K. Fung,
# PharmD, MPH", "Andreas Ekström, M Ed".
_DEGREE = re.compile(r"\s*,?\s*\b(?:B\.?\s?A|B\.?\s?Sc?|M\.?\s?A|M\.?\s?Sc?|M\.?\s?D|"
                     r"Ph\.?\s?D|D\.?\s?Phil|M\.?\s?Phil|MPH|MBA|R\.?N|Pharm\.?\s?D|DrPH|"
                     r"DDS|DVM|DNP|MSW|MSN|BSN|M\.?\s?Ed|"
                     r"(?:A\.\s?|Dist\.\s?)?M\.\s?ASCE|F\.\s?ASCE)\.?"  # ASCE's member grades
                     r"(?:\s+\d{1,2}(?:,\d{1,2})*)?"  # its affiliation's number: "Ph.D. 9"
                     rf"(?=[{SYMBOLS}]*\s*(?:,|and\b|&|$))")  # "MD*": the corresponding author
# Generation suffixes: "William J. Hansen Jr", "John H. Lienhard V".
_GENERATION = r"(?:Jr|Sr|II|III|IV)\.?"
_SUFFIX = re.compile(rf"\s*,?\s+{_GENERATION}(?:\s+[a-z](?=\s*,))?"  # "Jr. b,": a mark
                     r"(?=\s*(?:,|and\b|&|$))")
# Capitals a name starts with: Latin with its accents ("Á. Bakos", "Łukasz"), Greek, Cyrillic.
UPPER = "A-ZÀ-ÖØ-ÞĀĂĄĆČĎĐĒĘĚĞİŁŃŇŐŒŘŚŞŠŢŤŮŰŸŹŻŽΆΈ-ΏΑ-ΩЀ-Я"
NAME_WORD = re.compile(rf"^(?:[{UPPER}][.]?|(?:[{UPPER}]\.){{2,}}|(?:[{UPPER}]\.)+[{UPPER}]|"
                       rf"[{UPPER}]\.(?:-[{UPPER}]\.)+|"  # French initials: "A.-S. Jannot"
                       rf"[dl]['’][{UPPER}][^\W\d_]+|"  # "Stéphane d'Ascoli"
                       # a particle joined to the name: "Carlos R. del-Blanco"
                       rf"(?:de[lr]?|van|von|da|di|dos|du|la|le)-[{UPPER}][^\W\d_]+|"
                       rf"[{UPPER}][^\W\d_]*(?:[-'’][{UPPER}]?[^\W\d_]+)*\.?)$")
# Endings of nouns that no family name has ("Enrichment", "Estimation", "Methodology").
_NOUN_END = re.compile(r"(?:[a-z]{4}ment|[a-z]{3}ism|[a-z]{2}tions?|[a-z]{2}sions?|ology|ysis"
                       r"|[a-z]{2}ctors|graphic"  # "Predictors", "Factors" (not "Hector"),
                       # "Cryptographic"
                       r"|i[sz]ation|ities)$", re.IGNORECASE)
# A word of three letters or more without a vowel: glyph codes read as text ("Bdbh").
_NO_VOWEL = re.compile(r"[b-df-hj-np-tv-xzB-DF-HJ-NP-TV-XZ]{3,}\.?")  # Latin consonants only
# A Spanish patronymic before the last word is the first of two family names ("Leslie
# Pérez Cáceres"); a given name is not one.
_PATRONYMIC = re.compile(r"[A-ZÁÉÍÓÚ][a-záéíóúñ]+[eé]z")
# Spanish family names that come first of two ("Ester Ruiz Morales"), besides the
# patronymics in -ez; not those that are given names too (Martín, Cruz, Santos, León), nor
# those Portuguese names share (Ramos, Castro, Torres: "Lia Ramos Mota" is Mota).
_SPANISH = frozenset({
    "García", "Ruiz", "Díaz", "Moreno", "Muñoz", "Romero", "Alonso", "Navarro", "Serrano",
    "Blanco", "Molina", "Morales", "Ortega", "Delgado", "Ortiz", "Rubio", "Marín", "Sanz",
    "Iglesias", "Medina", "Garrido", "Cortés", "Castillo", "Lozano", "Guerrero", "Cano",
    "Prieto", "Calvo", "Gallego", "Herrera", "Peña", "Cabrera", "Fuentes", "Carrasco",
    "Caballero", "Aguilar", "Pascual", "Herrero", "Montero", "Hidalgo", "Durán", "Vargas",
    "Rojas", "Mendoza", "Espinosa", "Salazar", "Guzmán", "Villanueva", "Gallardo", "Sáez",
    "Crespo", "Arias", "Carmona", "Velasco",
    # Mexico's and Latin America's common family names (not given names as well)
    "Flores", "Rivera", "Reyes", "Chávez", "Juárez", "Contreras", "Estrada", "Mejía",
    "Sandoval", "Rosales", "Cervantes", "Figueroa", "Cárdenas", "Acosta", "Espinoza",
    "Pacheco", "Salinas", "Valdez", "Ibarra", "Rangel", "Tovar", "Olvera", "Trejo", "Zamora",
    "Villarreal", "Orozco", "Maldonado", "Ochoa", "Padilla", "Cisneros", "Solís",
    "Escobar", "Galindo", "Arellano", "Zúñiga", "Quintero", "Bermúdez", "Barrera", "Cuevas",
    "Bustamante", "Montoya", "Sepúlveda", "Valenzuela", "Saavedra", "Benavides"})
# A capital inside a word, except after Mc, Mac, Di, De, Le, La, Da, Du, Fitz (McGee) and
# Arabic's Al ("AlHamaydeh").
_CAMEL = re.compile(r"^(?!Mc|Mac|Di|De|Le|La|Da|Du|Fitz|Al[A-Z]|Vander|Van[A-Z])[A-Z][a-z]+[A-Z]")


# Portuguese suffixes a family name ends in: "Demival Vasques Filho", "Joel Larocca Neto".
_FAMILY_SUFFIX = frozenset({"Filho", "Neto", "Sobrinho", "Júnior", "Junior"})
# Given names Spanish-speaking countries use and Portuguese-speaking ones spell otherwise
# (Portuguese names end in the family name that counts: "Vivian Siqueira Santos Gonçalves"
# is Gonçalves). After one of them, a word that is no given name starts the first of two
# family names: "Jorge Luis Mayorga Taborda", "Cristóbal Rovira Kaltwasser".
_SPANISH_GIVEN = frozenset(re.findall(r"\w+", """
José Jorge Juan Luis Javier Alejandro Andrés Sergio Diego Pablo Ignacio Francisco Fernando
Alfonso Gonzalo Rodrigo Ricardo Eduardo Alberto Enrique Guillermo Gustavo Gerardo Héctor
Hernán Jaime Jesús Joaquín Julio Manuel Miguel Ángel Óscar Raúl Ramón Rafael Roberto
Salvador Santiago Tomás Vicente Víctor Cristóbal Esteban Felipe Agustín Nicolás Matías
Sebastián Emilio Arturo Armando Mauricio Álvaro Íñigo Xavier Camilo Germán Rubén Iván
María Lucía Isabel Elena Marta Pilar Teresa Cristina Beatriz Mónica Alejandra Verónica
Gabriela Natalia Carolina Catalina Valentina Camila Yessica Raquel Inés Sofía Luisa
Guadalupe Margarita Dolores Mercedes Rocío Lorena Yolanda Nuria Montserrat Susana Ximena
"""))
# More given names a second word may be: shared with Portuguese and Italian ("Juan Carlos
# López", "José João Almeida"), or English ("María Elizabeth Smith")
_MIDDLE = frozenset(re.findall(r"\w+", """
Carlos Antonio Pedro Mario Daniel Marco Marcos Paulo Paula Ana Maria Andrea Laura Julia Lucas
Martín Martin Alexandre Alexander Fabio Carla Sara Sandra Patricia Diana Adriana Claudia Silvia
Eva Rosa Clara Alicia Irene Juliana Fernanda Paola Marcelo Leonardo Mateo Gabriel Hugo Samuel
Simón Elías Abel Octavio Renato Leandro Ernesto Marcela Vanessa Jessica Karen Karina Lina Luz
Rosario Consuelo Soledad Cecilia Virginia Carmen Lourdes Esperanza Milagros Jose Angel Mariana
João Luiz Luís Márcio Sérgio Fábio Antônio Gonçalo Nuno Rui Tiago Thiago Vítor Rogério Flávio
Cláudio Otávio Vinícius Caio Henrique Guilherme Bruno
Elizabeth Ann Anne Jane Marie Lynn Louise Grace Rose Michael James John David Paul Peter
Joseph Thomas William Robert Richard Lee Ray Scott Alan Allen Mary Jean"""))
_GIVEN = _SPANISH_GIVEN | _MIDDLE
# Family names spelt like a particle, capitalised after a given name: Chinese Di and Du,
# Vietnamese Le and Do, Indian Das and De ("Shubra Deb Das").
_SHORT_FAMILY = frozenset({"Di", "Du", "Le", "Do", "Das", "De"})


# The particles as a regex alternation, longest first: "della" before "de".
PARTICLE_WORDS = "|".join(sorted(PARTICLES, key=lambda w: (-len(w), w)))
# Words a letter follows that are no family name: "Appendix A", "Table S", "Part B".
_NOT_GIVEN_INITIALS = re.compile(
    r"Appendix|Annex|Table|Tables|Figure|Figures|Fig|Section|Part|Chapter|Class|Type|Group|"
    r"Phase|Vitamin|Grade|Plate|Panel|Exhibit|Schedule|Level|Step|Stage|Case|Scheme|Option|"
    r"Item|Box|Room|Block|Building|Wing|Floor|Model|Series|Sector|Zone|Area|Region|Lemma|"
    r"Theorem|Corollary|Proposition|Definition|Example|Exercise|Problem|Question|Plan|Team|"
    r"Hall|Gate|Line|Route|Track|Batch|Set|Form|Version|Release|Star|Planet|Site|Camp|Day")


def _initials_after(name: str) -> str | None:
    """A name whose initials follow it, India's and Vancouver's way: "Babu P S" is Babu,
    P S. Only for a name that another follows on its line: at a line's end the family
    name may be on the next one ("Rajesh P N" / "Rao")."""
    words = name.split()
    if (2 <= len(words) - 1 <= 3 and re.fullmatch(r"[A-Z][a-z]{2,}", words[0])
            and all(re.fullmatch(r"[A-Z]", w) for w in words[1:])
            and not _NOT_GIVEN_INITIALS.fullmatch(words[0])):
        return f"{words[0]}, {' '.join(words[1:])}"
    return None


def _pinyin_pair(word: str) -> bool:
    """A Chinese given name of two syllables, each capitalised: "YaoGong", "ZhiCheng"."""
    parts = re.findall(r"[A-Z][a-z]+", word)
    return (len(parts) == 2 and "".join(parts) == word
            and all(_PINYIN.fullmatch(p.lower()) for p in parts))


def _spanish_four(words: list[str]) -> bool:
    """Four words, Spain's way: two given names, then two family names, the last one a
    patronymic or a common Spanish one ("Angel Luis Robles Fernández")."""
    return (len(words) == 4 and all(len(w) > 2 and w[:1].isupper() for w in words)
            and bool(_PATRONYMIC.fullmatch(words[-1]) or words[-1] in _SPANISH))


def person(name: str) -> str | None:
    """``First Last`` as ``Last, First`` when it reads like a person's name, else None."""
    name = _HONORIFIC.sub("", re.sub(rf",?\s+{_GENERATION}$", "", name.strip(" ;")
                                    ).strip(" ."))  # (a generation: "Robert Platt Jr.")
    words = name.split()
    if not 2 <= len(words) <= 6 or NOT_A_PERSON.search(name):
        return None
    if not all(NAME_WORD.match(w) or w.lower() in PARTICLES for w in words):
        return None
    if any(w.lower() in _FUNCTION_WORDS for w in words) and not all(
            _PINYIN.fullmatch(w.lower()) for w in words):  # (but "An Shu Te", Chinese)
        return None  # "Heavy Mesons In A Relativistic Model": a title line
    if words[0].lower() in ("los", "las"):
        return None  # a place: "Los Angeles", "Las Cruces"
    initials = [i for i, w in enumerate(words) if len(w.rstrip(".")) == 1]
    # the initials right after the first given name do not count ("Mitchell R. M. J.
    # Schijen"), nor one right before the family name ("Sky Karol Isaac S. Margate"); two
    # there do ("Andrea Vedaldi Philip H. S. Torr" is two people)
    free = initials == list(range(1, len(initials) + 1)) or initials == [len(words) - 2]
    if sum(w.lower() not in PARTICLES and not (free and len(w.rstrip(".")) == 1)
           for w in words) > 4:
        return None
    # two words after a given name's one initial: a family name of two ("Luna L. Sánchez
    # Reyes", "Guadalupe T. Tovar Mendoza")
    double = (len(words) == 4 and initials == [1] and len(words[0].rstrip(".")) > 1
              and not any(w.lower() in PARTICLES for w in words[2:]))
    if initials and initials[-1] > 0 and not double and sum(
            w.lower() not in PARTICLES and w not in ("St.", "Ste.")
            for w in words[initials[-1] + 1:]) > 1:
        return None  # "Leif T. Johnson Charles J. Geyer": two people (split_run's)
    if any(_CAMEL.search(w) and not (_pinyin_pair(w) and _PINYIN.fullmatch(words[-1].lower()))
           for w in words):
        return None  # "JavaScript", "PubTabNet": a product, not a person (but "YaoGong")
    if any(_NOUN_END.search(w) or _NO_VOWEL.fullmatch(w) for w in words):
        return None  # "Gene Set Enrichment", a title's nouns; "Bdbh", a font's glyph codes
    if (words[-1].lower() in PARTICLES and words[-1] not in _SHORT_FAMILY
            or len(words[-1].rstrip(".")) < 2):
        return None  # a family name is not an initial, nor a particle (but "Yi Di", "Bo Du")
    if len(words) == 2 and words[0] in ("TU", "KU", "UC", "FH"):
        return None  # a university named by its city: "TU Berlin", "KU Leuven", "UC Davis"
    if len(words) == 2 and words[1] in _US_STATES:
        return None  # a city and its state: "Pittsburgh PA" (not "Jian MA", "Sehoon OH")
    if "AI" in words:
        return None  # a company: "Pine AI"
    if len(words) == 2 and re.fullmatch(r"[A-Z]", words[0]):
        return None  # a bare letter is no given name under a title: "R Enthusiasts"
    if (re.fullmatch(r"[A-Z]{3,}", words[0])
            and not all(w.isupper() for w in words if len(w.rstrip(".")) > 1)):
        return None  # an acronym before a name is an institution's: "ETH Zurich"
    # Journals that set family names in capitals: "Ross G. DOUGLAS" is Douglas; a family
    # name of two capitalised words after the given name: "Duvérier DJIFACK ZEBAZE".
    caps = [len(w) > 2 and w.isupper() and not re.fullmatch(r"(?:[A-Z]\.)+[A-Z]?", w)
            for w in words]  # (initials are no family name: "Martin W.A. CAMINADA")
    block = len(caps) - next((i for i, c in enumerate(reversed(caps)) if not c), len(caps))
    words = [w.title() if c else w for w, c in zip(words, caps, strict=True)]
    mixed = any(not w.isupper() and len(w.rstrip(".")) > 1 for w in words[:block])
    fam = (" ".join(words[block:]) if block > 0 and len(words) - block >= 2
           and not any(caps[:block]) and mixed else family_name(" ".join(words)))
    given = " ".join(words[: len(words) - len(fam.split(" "))])
    if not given and len(words) == 2 and words[0][:1].isupper():
        fam, given = words[1], words[0]  # "Le Shu", "Bin Zhang": a given name, not a particle
    if not given:
        return None  # "di Giove": a particle and a word, no given name
    if double and fam == words[3]:
        fam, given = f"{words[2]} {fam}", " ".join(words[:2])
    if given.split()[-1:] in (["St."], ["Ste."], ["St"]) and len(given.split()) >= 2:
        fam, given = f"{given.split()[-1]} {fam}", " ".join(given.split()[:-1])  # St. Germain
    if fam in _FAMILY_SUFFIX and len(given.split()) >= 2:
        fam, given = f"{given.split()[-1]} {fam}", " ".join(given.split()[:-1])
    if (len(words) == 3 and fam == words[2] and re.match(r"[dD]['’]", fam)
            and not words[1].endswith(".")):
        fam, given = f"{words[1]} {fam}", words[0]  # "Baillot d'Étiaux", "Giscard d'Estaing"
    spanish = given.split()
    if (" " not in fam and not initials and 3 <= len(words) <= 4  # "Jorge Luis Mayorga
            and words[-3] in _SPANISH_GIVEN  # Taborda", "Cristóbal Rovira Kaltwasser"
            and words[-2] not in _GIVEN and words[-2][1:2].islower()
            and words[-2].lower() not in PARTICLES and fam == words[-1]):
        fam, given = f"{words[-2]} {fam}", " ".join(words[:-2])
    elif (_spanish_four(words) and " " not in fam  # "Robles Fernández"
            or len(spanish) >= 2
            and (_PATRONYMIC.fullmatch(spanish[-1]) or spanish[-1] in _SPANISH)):
        fam, given = f"{spanish[-1]} {fam}", " ".join(spanish[:-1])  # "Pérez Cáceres"
    elif (len(spanish) >= 3 and spanish[-2].lower() in PARTICLES and " " not in fam
          and (_PATRONYMIC.fullmatch(fam) or fam in _SPANISH)):
        # the first family name with its particles: "Isabel De La Torre Díez"
        k = len(spanish) - 1
        while k > 1 and spanish[k - 1].lower() in PARTICLES:
            k -= 1
        fam, given = f"{' '.join(spanish[k:])} {fam}", " ".join(spanish[:k])
    return f"{fam}, {given}"


# "Leif T. Johnson Charles J. Geyer": names each with initials, one after the other.
_INITIALED = (r"[A-Z][^\W\d_]+(?:-[A-Z][^\W\d_]+)?(?:\s+[A-Z]\.)+\s+"
              r"[A-Z][^\W\d_]+(?:[-'’][A-Z]?[^\W\d_]+)?")
_RUN = re.compile(rf"^(?:{_INITIALED}\s*){{2,}}$")
# ... and the last of them without an initial: "Sage A. Weil Andrew W. Leung Scott A. Brandt
# Carlos Maltzahn".
_RUN_THEN_TWO = re.compile(rf"^((?:{_INITIALED}\s+){{2,}})([A-Z][^\W\d_]+\s+[A-Z][^\W\d_]+)$")


def _split_run(part: str) -> list[str]:
    """A part that is several initialed names in a row (the last may have none), as those
    names; else the part."""
    part = part.strip()
    if _RUN.match(part):
        return re.findall(_INITIALED, part)
    if m := _RUN_THEN_TWO.match(part):
        return [*re.findall(_INITIALED, m.group(1)), m.group(2)]
    return [part]


# IEEE's grade after a name: "John Smith, Senior Member, IEEE, and Jane Doe, Fellow, IEEE".
_IEEE_GRADE = re.compile(r"\s*,?\s*(?:(?:Life|Graduate|Student|Senior)\s+)*(?:Member|Fellow)"
                         r"\s*,\s*IEEE\b|"  # and the other order: ", IEEE Student Member"
                         r"\s*,\s*IEEE\s+(?:(?:Life|Graduate|Student|Senior)\s+)*(?:Member|Fellow)\b")
# An ORCID after a name (Springer's LNCS): "John Smith1[0000-0002-1825-0097]"; labelled:
# "Muhammad Izzulhaq (ORCID: 0009-0009-6482-1899)".
_ORCID = re.compile(r"\s*[\[(]?\s*(?:ORCID(?:\s*iD)?\s*:?\s*)?"
                    r"\b\d{4}[-−]\d{4}[-−]\d{4}[-−]\d{3}[\dX]\b[\])]?")

# IEEE's conference template numbers its authors: "1st John Smith, 2nd Jane Doe" (the
# text layer may set the ordinal's letters apart, as a superscript: "1 st Weizhen Sun").
_ORDINAL = re.compile(rf"(?:^|(?<=,\s))[1-9]\s?(?:st|nd|rd|th)\s+(?=[{UPPER}])")


# A byline set family name first, initials after (IUCr's journals): "Bajor, J. ac,
# Tkaczuk, K.L. ac, Chruszcz, M. ac , Kagan, O. bc" (the letters are affiliations).
_INVERTED_NAME = re.compile(
    rf"([{UPPER}][^\W\d_]+(?:[- ][{UPPER}][^\W\d_]+)?),\s*((?:[{UPPER}]\.\s*-?\s*){{1,3}})"
    rf"(?:[a-z]{{1,3}}\b|[\d{SYMBOLS}]+)?\s*(?:,|(?:and|&)\s|$)\s*")


def _inverted(text: str) -> list[str]:
    """The names of a byline set "Family, I." throughout (two at least), else none."""
    names, pos = [], 0
    text = re.sub(r"^(?:and|&)\s+", "", text.strip())
    while pos < len(text):
        m = _INVERTED_NAME.match(text, pos)
        if m is None:
            return []
        if m.group(1).lower() not in PARTICLES and not NOT_A_PERSON.search(m.group(1)):
            initials = " ".join(f"{c}." for c in re.findall(rf"[{UPPER}]", m.group(2)))
            names.append(f"{m.group(1)}, {initials}")
        pos = m.end()
    return names if len(names) >= 2 else []


# An accent old TeX fonts set as a glyph of its own, which the text layer puts beside the
# word rather than over its letter: "Aaron van den Oord ¨", "Moustapha Cisse´".
_ACCENTS = "\u00a8\u00b4\u00b8\u02c6-\u02d9\u02db-\u02dd`\u00af"
_LOOSE_ACCENT = re.compile(rf"(?:(?<=\s)|^|(?<=[^\W\d_]))[{_ACCENTS}]+(?=\s|$|[,;])")
# ... or inside a name, its last letter after it: "Adria Colom ` e"
_SPLIT_ACCENT = re.compile(rf"(?<=[^\W\d_])\s+[{_ACCENTS}]\s+([^\W\d_])(?=[\s,]|$)"
                           # or a letter that has its accent too: "Rodr ´ íguez"
                           rf"|(?<=[^\W\d_])\s+[{_ACCENTS}]\s+([À-ÖØ-öø-ÿ])(?=[^\W\d_])")


def parse_byline(text: str) -> list[str]:
    """:func:`_parse_byline`'s names; where it reads none, its names of the byline with the
    names the text layer glued together set apart, in a list ("ErinAllor 4, HannahThomas 4";
    not a name alone: "BiobitWorks" is a company). A given name of four letters or more
    only: not "McDonald", "DeAngelis", "LaFontaine", "MacKay"."""
    if names := _parse_byline(text):
        return names
    apart = re.sub(r"\b([A-Z][a-z]{3,})([A-Z][a-z]{2,})\b", r"\1 \2", text)
    return _parse_byline(apart) if apart != text and re.search(r",|;|&|\sand\s", text) else []


def _parse_byline(text: str) -> list[str]:
    """Authors of a byline ("A B 1*, C D 2,3 and E F 4") as ``Last, First``; empty when
    the line does not read as a list of names (every part must)."""
    text = unglue_and(text)
    text = re.sub(r"^\s*(?:authors?|author\(s\)|written by|designers?|creators?)\s*:\s*", "", text,
                  flags=re.IGNORECASE)
    text = text.replace("--", "-")  # LaTeX's en dash typed in a name: "Pit--Claudel"
    text = re.sub(r",?\s+et\s+al\.?\s*$", "", text)  # "Ruth Angus, et al.": the names it gives
    # loose accents: "Adria Colom ` e", "Jill-Jenn Vie, ˆ 1", "Sebastien Jean ´"
    text = _LOOSE_ACCENT.sub("", _SPLIT_ACCENT.sub(lambda m: m.group(1) or m.group(2), text))
    text = re.sub(rf"\b([OD]['’])\s+(?=[{UPPER}])", r"\1", text)  # "Dion O' Neale"
    text = text.replace("\u00ad", "-")  # a soft hyphen in "Pin\u00adHao Chao"
    text = re.sub("[\ue000-\uf8ff]", "", text)  # a private-use glyph: SAGE's ORCID icon
    text = re.sub("[\x80-\x9f]", " ", text)  # a C1 control code a font maps a mark to
    text = re.sub(rf"(?<=[\d{THANKS}])\s*(?:ID|iD)(?=\s|,|$)", "", text)  # MDPI's, IOP's ORCID
    if re.match(r"\d{1,2}[A-Z][a-z]", text) and "," not in text:
        return []  # an affiliation's row, its number glued on: "1Risk Efficacy & Redline Rising"
    text = re.sub(r"\s*\[ORCID\]", "", text)  # icon ("1,* ID", "1 iD"), Springer's "[ORCID]1*"
    # JHEP's affiliation letters set as words between names: "Anirban Mukherjee a Siddhartha"
    text = re.sub(rf"(?<=[^\W\d_]{{2}})\s+[a-d](?:\s*,\s*[a-d\d])*\s*,?\s+(?=[{UPPER}][a-z])",
                  ", ", text)
    text = re.sub(r"(?<=[^\W\d_]{2}),?\s+[a-d](?:\s*,\s*[a-d\d]+)*\s*$", "", text)  # "… Lal, a,1"
    text = re.sub(r"(?<=[a-z])ID(?=[\s\d,*]|$)", "", text)  # PLOS's, glued: "Eleanor LeighID 1*"
    text = re.sub(r"\s+(?:date|dated)\s*:.*$", "", text, flags=re.IGNORECASE)  # "… Date: 03.2026"
    text = re.sub(r'\s*["“][^"“”]{1,20}["”]\s*', " ", text)  # a nickname: Yicheng "Billy" Lu
    text = re.sub("[\u00b9\u00b2\u00b3\u2070-\u2079]+", " ", text)  # "Roggenkamp¹": a mark
    # affiliation letters before the first name: "a, b Herman Monsuur , Ton Storcken *"
    text = re.sub(rf"^\s*(?:[a-z]\s*,\s*)*[a-z]\s+(?=[{UPPER}])", "", text)
    text = re.sub(rf"\b([{UPPER}])\.(?=[{UPPER}][a-z])", r"\1. ", text)  # "M.Tuncay Gençoğlu"
    # The addresses after the names: "… Kurt Konolige email: {grisetti,kuemmerl}@uni.de …"
    text = re.sub(r"\s*\b(?:e-?mails?|contact)\s*:.*$", "", text, flags=re.IGNORECASE)
    # a byline that runs on into its affiliations, lettered PNAS's way: "… Verstynen
    # a,b,c,d aDepartment of Psychology; bCenter for …"
    text = re.sub(r"\s+[a-z](?:Department|Dept\.|Centre|Center|School|Institute|Laborator"
                  r"|Faculty|Division|College|University|Universit)\w*\b.*$", "", text)
    text = re.sub(r"\s*<[^<>]*@[^<>]*>", "", text)  # "Paul E. Johnson <pauljohn @ ku.edu>"
    text = re.sub(r",?\s*[\w.+-]+@[\w-]+(?:\.[\w-]+)+", "", text)  # "John Verzani, jv@x.com"
    # (an ORCID parts two names: "Jie Hu[0000−0002−5150−1003] Li Shen[…]")
    text = _ORCID.sub(",", _IEEE_GRADE.sub("", " ".join(text.split()))).rstrip(",")
    text = _ORDINAL.sub("", text)
    text = re.sub(rf"(?<=[\d{THANKS}])\s+\.$", "", text)  # the marks' full stop: "1,4,* ."
    text = re.sub(r"\s*;\s*", ", ", text).rstrip(", ")  # "Tanya Strydom 1,2; Salomé …"
    if not text or len(text) > 600 or re.search(r"[:@/]|\d{3,}", text):
        return []
    if inverted := _inverted(text):
        return inverted
    # A role or group in brackets: "(Co-ordinator)", "(AAS Journals Data Editors)".
    text = _GROUP_LAST.sub("", re.sub(r"\s*\([^()]{0,60}\)", "", text))
    text = re.sub(r"\s*\([^()]{0,60}$", "", text)  # one the next row closes: "… Goulier (Institute"
    text = re.sub(r"\s*,\s*(?:editors?|eds?\.)$", "", text, flags=re.IGNORECASE)  # "…, Editor"
    text, placed = _COUNTRY_LAST.subn("", text)
    if placed and re.match(_PLACE_FIRST, text.split(",")[-1].strip()):
        return []  # "Palo Alto, USA": a city, not a person
    # "by A and B"; "and C, Fellow, IEEE", the second line of a byline
    text = _AFFIL.sub("", re.sub(r"^(?:by|and|&)\s+", "", text, flags=re.IGNORECASE))
    text = _SUFFIX.sub("", _DEGREE.sub("", text))
    # Wiley's affiliation letter set after the comma, before the marks: "Scott S. Emerson,
    # a ∗† Gregory P. Levin a and …"; or before the next name: "Ruslan V. Bikbulatov, a Feng
    # Yan, b Bryan L. Roth b and …"
    text = re.sub(rf",\s*[a-z](?:\s*,\s*[a-z])*(?:\s*(?=[{SYMBOLS}])|\s+(?=[{UPPER}]))", ", ",
                  text)
    # Names set apart only by their footnote symbols: "Krzysztof Burdzy ‡ Djalil Chafaï §".
    text = re.sub(rf"(?<=[^\W\d_])\s*[{SYMBOLS}]+\s+(?=[{UPPER}])", ", ", text)
    # ... or by their affiliations' numbers: "Peiyuan Feng 1 Yuan Lin†1 Yuchen Zhang 1",
    # "C. N. Poveda-Ruiz 1 J. E. Forero-Romero 1".
    text = re.sub(rf"(?<=[^\W\d_])\s*[{SYMBOLS}]*\s*\d{{1,2}}(?:\s*,?\s*\d{{1,2}})*\s*[{SYMBOLS}]*"
                  rf"\s+(?=[{UPPER}](?:[^\W\d_]*|\.)(?:[-'’][^\W\d_]+)*\s)", ", ", text)
    # "and" in any case; "und", "et", "y", "e" (German, French, Spanish, Italian) in lower;
    # a middle dot, bullet or bar between names (Springer's "A · B · C").
    parts = re.split(r"\s*,\s*(?:(?i:and)\s+|&\s*)?|\s+(?:(?i:and)|&|und|et|y|e)\s+"
                     r"|\s*[·•∙⋅|]\s*", text)
    # Marks before a name ("Anna Sundström, 1 Michael Rönnlund") go too.
    # (REVTeX sets them after the comma: "Chakresh Kr. Singh, ∗ Demival …, ‡ and Dion …")
    parts = [re.sub(rf"^(?:{MARKERS}\s*)+(?:(?i:and)\s+|&\s*)?", "", p) for p in parts]
    parts = [q for p in parts if p.strip() for q in _split_run(p)]
    names = [person(p) or (_initials_after(p) if i < len(parts) - 1 else None)
             for i, p in enumerate(parts)]
    if not names or any(n is None for n in names):
        return []
    if len(parts) == 1 and len([w for w in parts[0].split() if w.lower() not in PARTICLES]) >= 4 \
            and not re.search(r"\b[A-Z]\.?(?:\s|$)", parts[0]) \
            and not _spanish_four(parts[0].split()):  # ("Mark van der Loo" is one)
        return []  # "John Kiplinger Valerie Yaw": two people on a line, or one? Not known.
    return [n for n in names if n]


# The addresses under a byline: "{jacobdevlin,mingweichang,kentonl,kristout}@google.com",
# "a.smith@uni.edu, bjones@x.org".
_BRACED = re.compile(r"\{([^{}]+)\}\s*@")
# ... or each with its host, the domain after the brace: "{apoorv@cs, xie@cs}.columbia.edu"
_BRACED_HOSTS = re.compile(r"\{([^{}]*@[^{}]*)\}\s*\.")
_ADDRESS = re.compile(r"([\w.+-]+)@[\w-]+(?:\.[\w-]+)+")


def email_locals(lines: list[str]) -> list[str]:
    """The local parts of the e-mail addresses on ``lines``, in order, letters only and in
    lower case ("ming-wei.chang" -> "mingweichang")."""
    found: list[str] = []
    for line in lines:
        found += [p for m in _BRACED.finditer(line) for p in m.group(1).split(",")]
        found += [p.split("@")[0] for m in _BRACED_HOSTS.finditer(line)
                  for p in m.group(1).split(",")]
        line = _BRACED_HOSTS.sub(" ", _BRACED.sub(" @", line))
        found += [m.group(1) for m in _ADDRESS.finditer(line)]
    return [re.sub(r"[^a-z]", "", p.lower()) for p in found if p.strip()]


def split_by_emails(line: str, locals_: list[str]) -> list[str]:
    """A run of names with nothing between them ("Jacob Devlin Ming-Wei Chang Kenton Lee
    Kristina Toutanova", ACL's byline), split so that each name, two or three words, spells
    its e-mail address's local part in the order the addresses come (the part starts with
    the name's first letter, its letters follow in the name and reach its family name:
    "kentonl", "kristout"); every word and every address used. Empty when no such split
    exists."""
    words = line.split()
    k = len(locals_)
    if (k < 2 or not 2 * k <= len(words) <= 3 * k or any(len(p) < 2 for p in locals_)
            or not all(NAME_WORD.match(w) for w in words)):
        return []

    def spelt(short: str, group: list[str]) -> bool:
        """``short`` starts with the group's first letter, its letters follow in the
        group's, and the last of them falls in its last word (the family name)."""
        parts = [re.sub(r"[^a-z]", "", fold(w)) for w in group]
        long, pos = "".join(parts), -1
        for c in short:
            pos = long.find(c, pos + 1)
            if pos < 0:
                return False
        return short[:1] == long[:1] and pos >= len(long) - len(parts[-1])

    def split(i: int, j: int) -> list[list[str]] | None:
        if j == k:
            return [] if i == len(words) else None
        for n in (2, 3):
            group = words[i:i + n]
            if len(group) == n and spelt(locals_[j], group):
                rest = split(i + n, j + 1)
                if rest is not None:
                    return [group, *rest]
        return None

    groups = split(0, 0)
    if groups is None and len(words) == 2 * k:  # nicknames ("rbg" for Ross Girshick): as
        pairs = [words[i:i + 2] for i in range(0, len(words), 2)]  # many pairs as addresses,
        agree = sum(short[:1] == fold(g)[:1] or fold(f) in short  # each its given name's
                    for short, (g, f) in zip(locals_, pairs, strict=True))  # initial or family
        if agree >= k - (k >= 3):  # (one nickname more among three: "becky" for Rebecca)
            groups = pairs
    names = [person(" ".join(g)) for g in groups or []]
    return [n for n in names if n] if names and all(names) else []


def one_word_pairs(names: list[str]) -> list[list[str]]:
    """``names`` as [family, given] pairs of one word each, two names at least: the bylines
    whose order a convention may turn; empty for any other."""
    parts = [n.split(", ", 1) for n in names]
    if len(parts) < 2 or any(len(p) != 2 or " " in p[0] or " " in p[1] for p in parts):
        return []
    return parts


# China's commonest family names in pinyin, and a word of pinyin syllables: "Yang Dingming,
# Cui Yanrong" set family name first as Chinese journals print an English byline.
_CHINESE_FAMILY = frozenset(re.findall(r"\w+",
    "wang li zhang liu chen yang huang zhao wu zhou xu sun ma zhu hu guo he lin luo gao "
    "zheng liang xie song tang han feng deng cao peng zeng xiao tian dong pan yuan cai jiang "
    "yu du ye cheng wei su lu ding ren shen yao cui zhong tan fan jin shi liao jia xia fu "
    "fang bai zou meng xiong qin qiu yin xue yan duan lei hou long tao gu mao hao gong shao "
    "wan qian dai mo kong xiang chang wen kang niu hong zhan ou pang zhuang lai gan qi jiao "
    "ni zhai geng bao ge shang hua lan lou xing"))
_PINYIN = re.compile(r"(?:(?:zh|ch|sh|[bpmfdtnlgkhjqxrzcsyw])?(?:iang|iong|uang|ang|eng|ing|"
                     r"ong|ian|iao|uai|uan|ai|ei|ao|ou|an|en|in|un|ia|ie|iu|ua|uo|ue|ui|er|"
                     r"[aoeiuv]))+")


def family_first(names: list[str]) -> list[str]:
    """``names`` turned where a byline sets Chinese names family name first ("Yang Dingming,
    Cui Yanrong, Yuan Hongqiang" read as given name first): two names at least, each of two
    words, each read given name a common Chinese family name, and each read family name
    pinyin that is none ("Wei Zhang" stays: Zhang is a family name; "Long Nguyen" stays:
    Nguyen is no pinyin). As read otherwise."""
    parts = one_word_pairs(names)
    if not parts:
        return names
    for family, given in parts:
        fam, giv = family.lower(), given.lower()
        if (giv not in _CHINESE_FAMILY or fam in _CHINESE_FAMILY
                or not _PINYIN.fullmatch(fam) or not family[:1].isupper()):
            return names
    return [f"{given}, {family}" for family, given in parts]


# A repository's cover (Pure's: Edinburgh Research Explorer and others): "Citation for
# published version: Allamanis, M & Sutton, C 2013, 'Why, when, …'", or in APA "(APA):
# Allamanis, M., & Sutton, C. (2013)."
_COVER_CITATION = re.compile(r"Citation\s+for\s+published\s+version\s*(?:\(APA\))?\s*:\s*"
                             r"(.{5,400}?)\s*\(?(?:1[89]|20)\d\d\)?\s*[,.]")
_FAMILY_INITIALS = re.compile(rf"([{UPPER}][^\W\d_'’-]*(?:(?:\s+(?:{PARTICLE_WORDS}))*['’ -]"
                              rf"[{UPPER}][^\W\d_'’-]*)*),\s*"
                              rf"((?:[{UPPER}]\.?[\s-]?)+)(?=\s*(?:,|&|and\b|$))")


def cover_citation(text: str) -> list[str]:
    """The authors a repository's cover page cites the paper by, ``Family, I.``; empty when
    there is no such cover or a part does not read as a name."""
    m = _COVER_CITATION.search(" ".join(text.split()))
    if not m:
        return []
    names = [f"{f}, {g.strip()}" for f, g in _FAMILY_INITIALS.findall(m.group(1))]
    rest = _FAMILY_INITIALS.sub("", m.group(1))
    return names if names and not re.search(r"[^\W\d_]{2,}", re.sub(r"\band\b", "", rest)) \
        else []


# A template's own sample authors, left in a draft: BMC's "Jane E Doe" and "John RS Smith",
# LIPIcs's "Joan R. Public" and "John Q. Open", elsarticle's and others' "John Doe".
_PLACEHOLDER = re.compile(r"(?:Doe, (?:Jane|John)\b.*|Smith, John RS|Public, Joan R\.?|"
                          r"Open, John Q\.?|Author, (?:First|Second|Third)\b.*)")


def placeholders(names: list[str]) -> bool:
    """Whether every name is one a template prints for its authors to replace."""
    return bool(names) and all(_PLACEHOLDER.fullmatch(n) for n in names)



def _bases(text: str) -> str:
    """``text`` with each letter's accent dropped, one character for one ("é" → "e"), so a
    match's offsets are the text's own."""
    return "".join(unicodedata.normalize("NFKD", ch)[:1] or ch for ch in text)


def _cited(family: list[str], initial: str, text: str, bases: str) -> str | None:
    """``family`` as the text cites it, ``Family, I.`` or ``Family I`` (a reference's
    form: the initial of the given name after it), spelt as the text spells it; else None."""
    words = r"[\s-]+".join(re.escape(w) for w in _bases(" ".join(family)).split())
    # (not after an initial: "[10] A. Ayub Khan, A. A. Laghari" lists initials first, and
    # the initial after the comma is the next author's)
    m = re.search(rf"(?<![\w-])(?<![{UPPER}]\.\s)(?<![{UPPER}]\.)(?i:{words}),?\s+"
                  rf"{re.escape(initial)}(?:\.|(?![^\W\d_]))", bases)
    if not m:
        return None
    spelt = " ".join(text[m.start():m.end()].rsplit(None, 1)[0].rstrip(",").split())
    return " ".join(family).replace(" ", "-" if "-" in spelt else " ") \
        if spelt.isupper() else spelt


def cited_families(names: list[str], text: str) -> list[str]:
    """``names`` with each family name as the paper's own references cite it. A byline
    "Ravit Shagan Damti" reads as the given names "Ravit Shagan", but a reference "Shagan
    Damti, R." says the family name has both words ("Mac Low M.-M.", "Olvera de la Cruz,
    M."); the other way, a family name of two words that is never cited whole while its
    last word is ("R. Preston McAfee": "McAfee, R. P.") keeps only that word."""
    bases = text if text.isascii() else _bases(text)
    out = []
    for name in names:
        family, sep, given = name.partition(", ")
        words, fam = given.split(), family.split()
        if not sep or not words or not words[0][:1].isupper():
            out.append(name)
            continue
        initial = _bases(words[0][:1])
        for k in range(1, len(words)):  # the longest family name first
            if any(len(w.rstrip(".")) < 2 or "." in w for w in words[k:]):
                continue  # an initial is no part of a family name
            if spelt := _cited(words[k:] + fam, initial, text, bases):
                name = f"{spelt}, {' '.join(words[:k])}"
                break
        else:
            if (len(fam) == 2 and fam[0].lower() not in PARTICLES and "-" not in family
                    and not fam[0].endswith(".")  # "St. Germain"
                    and not _cited(fam, initial, text, bases)
                    and (spelt := _cited(fam[-1:], initial, text, bases))):
                name = f"{spelt}, {given} {fam[0]}"
        out.append(name)
    return out


# A Markdown draft printed with its front matter showing (Quarto's, R Markdown's):
# 'title: "…" author: "Wonpyo Han" date: …', or a list: 'author: - "A" - "B"'.
_FRONT_MATTER = re.compile(r"\bauthor:\s*((?:-?\s*[\"'][^\"'\n]{3,80}[\"']\s*)+)")


def front_matter_authors(text: str) -> list[str]:
    """The authors of a front matter printed on page 1; empty when there is none, or one
    of its names does not read as a person's."""
    m = _FRONT_MATTER.search(text)
    return parse_byline(", ".join(re.findall(r"[\"']([^\"']+)[\"']", m.group(1)))) if m else []
