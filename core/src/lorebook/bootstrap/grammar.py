"""The vocabulary of English rule sentences: the words and phrase patterns bootstrap reads.

:mod:`lorebook.bootstrap.statements` says how they are used. Every list and pattern here is
about how English states a rule, a step, a definition or a decision, not about any
project's subject: the verbs an instruction opens with, the modals and adverbs that bind,
the openings of a how-to, the markers of history and of hedging.
"""

from __future__ import annotations

import re


def _lexicon(text: str) -> frozenset[str]:
    """The words of ``text`` (whitespace-separated), as a set."""
    return frozenset(text.split())


_I = re.IGNORECASE
PLEASE = re.compile(r"^(?:please|just|also|and)\s+", _I)
_NT = r"n['\u2019]?t"
_OPEN = r"(?:^|[;:(\u2014\u2013]\s*|\s-\s|\b(?:please|to|must|should|shall)\s+)"
"""Where a word addresses someone: a clause's start, or after *please*, a modal, *to*.

A leading condition is cut off before this is matched (:func:`main_clause`), so "If the key
is missing, don't fail" opens its clause with *don't*."""
_NOT_A_VERB = (
    r"(?!\s+(?:a|an|the|this|that|any|some|one|more|less|true|false|null|none|empty|safe|in|on"
    r"|at|for|with|by|from|as|be|been|is|are|was|were|has|have|had|so|too|very|just|all|both"
    r"|either|exactly|zero|\w+ed|\w*[^s\W]s|\w+(?:able|ible|ful|ous))\b)"
)
"""After *never* or *always*: the next word is a verb in its plain form, not "never an
error", "always safe", "never blocks" (what something does), "always applicable"."""

PRACTICE_VERBS = _lexicon(
    """
    adhere annotate assert avoid base call catch cite co-locate colocate comment conform cover
    declare default define depend derive document emit ensure exclude explain fake favor favour
    follow format group guard handle import include inject isolate justify keep leave limit lint log
    maintain mark match mirror mock name organise organize parameterize parametrize pass pin place
    prefer prefix preserve put raise reach refrain rely remember require respect return reuse review
    scope separate sign sort split squash stay stick store structure stub suffix test throw treat
    use validate wrap write
    """
)
"""Imperatives of a standing practice: "Use X for Y", "Keep functions short"."""

ACTION_VERBS = _lexicon(
    """
    accept activate add apply authenticate browse build cd check checkout choose click clone close
    commit configure confirm connect copy create delete deploy disable download drag edit enable
    enter execute export fetch fill find generate get go hover init initialize install launch list
    locate log login look make merge move navigate open paste pick press print provide pull push
    read refer register remove rename replace restart run save scroll see select set setup show sign
    source specify start stop submit supply switch tap tick toggle try type update upgrade verify
    view visit wait
    """
)
"""Imperatives of a one-off action: a step, unless something makes it a habit."""

_UI_VERBS = r"click|tap|select|choose|press|navigate|scroll|toggle|tick|untick|uncheck|drag|hover"
_UI_SOFT_VERBS = r"open|enter|type|go to|visit|accept|confirm|fill in|paste|find|locate|sign in"
_UI_NOUNS = (
    r"button|menu|tab|dialog|drop-?down|check-?box|radio|sidebar|toolbar|window|screen|page"
    r"|panel|modal|link|field|form|settings|option|options|pop-?up|icon"
)
_SEQUENCE = r"(?:(?:then|now|next|first|finally|afterwards)[, ]+)?"
CLICK = re.compile(rf"^{_SEQUENCE}(?:(?:do{_NT}|do not|never)\s+)?(?:{_UI_VERBS})\b", _I)
CLICK_SOFT = re.compile(rf"^{_SEQUENCE}(?:{_UI_SOFT_VERBS})\b", _I)
UI_NOUN = re.compile(rf"\b(?:{_UI_NOUNS})\b|\"[^\"]+\"|\u201c[^\u201d]+\u201d", _I)

STRONG = re.compile(
    rf"{_OPEN}(?:always|never){_NOT_A_VERB}\b"
    r"|\b(?:must|must not|mustn['\u2019]?t|shall not|at all times|under no circumstances)\b"
    r"|\b(?:is|are) (?:required|mandatory|forbidden|prohibited|not allowed)\b"
    r"|^(?:forbidden|prohibited|required|mandatory)\s*[:!\u2014-]",
    _I,
)
PLAIN_PROHIBITION = re.compile(
    rf"{_OPEN}(?:do not|do{_NT})\b(?!\s+(?:need|have to|worry|bother|mind|hesitate|forget))",
    _I,
)
"""*Do not* in a binding place: a prohibition, though not a universal one."""
NO_SUCH = re.compile(
    r"^\W*no\s+(?!(?:one|body|thing|matter|longer|more|need|way|problem|idea|doubt)\b)"
    r"(?!.*\b(?:is|are|was|were|be|been|has|have|had|do|does|did|can|could|will|would"
    r"|should|may|might|must|shall|exists?|needed|required)\b)[^\s,;:]+(?:\s+\S+){0,7}\W*$",
    _I,
)
"""A verbless "No ..." sentence, a style guide's prohibition: "No barrel files", "No nested
`components/` folders in route directories" ("No one ...", "No tests were run" are not)."""
NEGATIVE = re.compile(
    rf"{_OPEN}never{_NOT_A_VERB}\b"
    rf"|{_OPEN}(?:avoid(?:ing)?|do not|do{_NT})\b(?!\s+(?:need|have to|worry|bother"
    r"|mind|hesitate|know|care|forget)\b)"
    rf"|\b(?:must not|mustn['\u2019]?t|should not|should{_NT}|may not|shall not|cannot be"
    r"|can ?not be)\b"
    r"|\bnot (?:be )?(?:allowed|permitted)\b|\bforbidden\b|\bprohibited\b",
    _I,
)
"""A prohibition. A bare "No X" is not one: without a verb it names an absence, which a
list of problems ("No standardized format") states as often as a rule ("No inline
imports")."""
_CLAUSE_OPEN = r"(?:^|[;:(\u2014\u2013]\s*|\s-\s|\b(?:please|must|should|shall)\s+)"
"""A clause's start, without *to*: "run the tests to ensure they pass" states a purpose."""
OBLIGATION = re.compile(
    rf"{_OPEN}always{_NOT_A_VERB}\b|{_CLAUSE_OPEN}(?:make sure|ensure|be sure to|prefer)\b"
    r"|^only\b"
    r"|\b(?:must|(?:is|are) required|required to|mandatory|shall"
    r"|should only|must only|we prefer|preferred)\b",
    _I,
)
SHOULD = re.compile(
    r"\bshould\b(?!\s+(?:now\s+)?(?:be able to|see|get|print|output|look|show|appear|display"
    r"|return|work|have been|succeed|pass|complete|start|open|be (?:visible|running"
    r"|available|installed|done|ready|similar)))",
    _I,
)
SCOPE = re.compile(
    r"\b(?:always|never|every|each time|whenever|any time|anytime|before (?:\w+ing|you"
    r" (?:commit|push|merge|open|submit|release|publish))|after (?:\w+ing|you (?:change|add"
    r"|edit|update|modify))|instead of|rather than|only|unless|except)\b",
    _I,
)
CONTRAST = re.compile(
    r"[,;]\s*(?:and\s+)?not\s+\S|\binstead\b|\brather than\b|\bin favou?r of\b"
    r"|\bnot\s+`[^`]+`",
    _I,
)
"""What an instruction is chosen over ("Use anyio, not asyncio", "... instead of ...")."""
GOTCHA = re.compile(
    r"\b(?:be careful|careful:|beware|watch out|pitfall|gotcha|caveat|the catch is)\b", _I
)
CHOICE = re.compile(
    r"\bwe(?:'ve| have)? (?:chose|choose|decided|picked|selected|opted|went with|settled on"
    r"|standardi[sz]ed on)\b|\b(?:was|were) (?:chosen|picked|selected)\b",
    _I,
)
CHOICE_REASON = re.compile(
    r"\b(?:because|since|so that|rather than|instead of|over|to avoid|to keep|to prevent|for)\b",
    _I,
)
DELIBERATE = re.compile(r"\b(?:deliberately|intentionally|on purpose|by design)\b", _I)
DELIBERATE_REASON = re.compile(
    r"\b(?:because|since|so that|to avoid|to keep|to prevent)\b|[:\u2014]\s", _I
)
CONDITION = re.compile(
    r"^(?:when|whenever|if|before|after|while|unless|once|since|because|although|even if"
    r"|for|in|on|with|without|during|as|considering|given|assuming|provided)\b[^,;:]{1,100},"
    r"\s*",
    _I,
)
SUBORDINATE_TAIL = re.compile(r"\s+(?:when|whenever|if|unless|where|while|until)\s.*$", _I)
"""A condition after the main clause ("Set X when a sandbox must not ..."): its modal is the
condition's, not the rule's."""
RELATIVE_CLAUSE = re.compile(r",\s+(?:where|which|who|whose|whereby|that)\b[^,;:]*", _I)
COORDINATED = re.compile(r"\b(?:and|but|or)\s+(?:never|do not|don't|avoid)\b", _I)
"""A prohibition joined to an imperative: "Pass them in, but do not call them"."""
REASON_TAIL = re.compile(
    r"[,;]?\s+(?:because|since|so that|so|as otherwise|otherwise|to avoid|to prevent|which)"
    r"\s.*$",
    _I,
)
_PRONOUN = r"(?:this|that|it|which|what|there|these|those|here|he|she|they|you|we|i)"
_TERM_WORD = r"[\w`\"'\u201c\u201d./-]+"
DEFINITION = re.compile(
    rf"^(?:an? |the )?(?!(?:{_PRONOUN}|no|not|\w+ing)\b)(?:{_TERM_WORD}\s){{0,2}}{_TERM_WORD}\s"
    r"(?:means|refers to|stands for|is short for|is defined as|denotes|is what we call)\b"
    r"|\bwe call (?:it|this|that|these|them|the \w+|\w+) [\"'\u201c`]"
    r"|\b(?:is|are) (?:also )?called\s+(?:an? |the )?[\"'\u201c`]"
    r"|\balso (?:called|known as)\b",
    _I,
)
HEDGE = re.compile(
    r"\b(?:may|might|perhaps|maybe|possibly|probably|could|can|consider|optionally|feel free"
    r"|if you like|if needed|if necessary|you'?ll want|try to|tend to|usually|often|typically"
    r"|generally|sometimes|recommend(?:ed|s)?|suggest(?:ed|s)?|where possible|if possible"
    r"|ideally|good idea)\b",
    _I,
)
PROHIBITED_ADVICE = re.compile(
    r"^\W*(?:don'?t|don\u2019t|do not|never)\s+(?:suggest|recommend|consider)\w*", _I
)
"""A verb of advice a prohibition forbids ("Don't suggest whitespace changes"): the act
ruled out, not a hedge on the rule."""
HOW_TO = re.compile(
    r"^(?:to \w+|in order to|if you(?:'d| would)? (?:want|need|wish|like|prefer|are looking"
    r"|plan)|when you (?:want|need)|for (?:more|details|further|an? )|here(?:'s| is| are)\b"
    r"|below\b|above\b|the following\b|this (?:page|guide|section|document|doc|file|readme"
    r"|tutorial|example|chapter|repo|repository|project)\b|see\b|check out\b|refer to\b"
    r"|read (?:the|more|about)\b|learn more\b|visit\b|first,? |then,? |next,? |finally,? "
    r"|now,? |once\b|after that\b)",
    _I,
)
PURPOSE = re.compile(
    r"(?<!\bsure )(?<!\bremember )(?<!\bneed )(?<!\bhave )(?<!\bhas )(?<!\bwant )"
    r"(?<!\bable )(?<!\bgoing )(?<!\bought )"
    r"\bto (?!(?:avoid|prevent|ensure|keep|guarantee|stop|protect|preserve|make sure|catch"
    r"|detect|the|a|an|your|its|their|this|that|be|all|any|each|every)\b)[a-z]+\b",
    _I,
)
"""*To* + a verb after an instruction: its purpose, a capability ("Use `-s` to see a short
log"), unless the purpose is a rule's reason (*to avoid*, *to ensure*) or the *to* belongs to
the verb before it ("make sure to", "remember to")."""
DIALOGUE = re.compile(r"\b(?:user|assistant|ai|agent|human|claude|bot|me|you)\s*:\s*[\"\u201c]", _I)
"""A quoted exchange ("User: \"Never update tasks.md ...\""): an example of a conversation."""
LEAD_IN = re.compile(
    r"\b(?:this|these|the following|following|as follows|format|pattern|template|structure"
    r"|process|procedure|steps|protocol|examples?)\b[^:]{0,20}:$"
    r"|\b(?:the following|these|all of these)\b.*:$"
    r"|\b(?:with|to|as|like|by|using|from|in|into|for|of|via)\s*:$"
    r"|\b(?:must|should|shall|will|can|need to|have to|has to)(?:\s+(?:not|never|always|also))?"
    r"(?:\s+[a-z]+)?\s*:$"
    r"|\b(?:be|been|being|is|are|was|were|it|them|they)\s*:$",
    _I,
)
"""A sentence that ends by introducing what follows ("follow this process:", "begin your
test file with:"), or whose clause the list after it finishes: a modal or its verb without
an object ("the AI must:", "every edit MUST log:"), an auxiliary ("until changes have
been:"), a pronoun ("is forbidden as it:"); or that names "the following" or "these"
anywhere ("must satisfy all of these requirements when ...:")."""
DEMONSTRATIVE = re.compile(
    r"(?:\b(?:that|those)\s+|\b(?:this|these)\s+(?!(?:project|repo|repository|codebase)\b)"
    r"(?:[\w-]+\s+){0,3})(?:process|protocol|rule|rules|command|format|pattern"
    r"|template|structure|approach|section|step|steps|procedure|guideline|guidelines|workflow"
    r"|document|file|page|guide|list|table|purpose|domain|function|method|path|setting|option)\b",
    _I,
)
"""A rule about "this process", "these steps", "this test-driven development workflow", "for
this purpose" or "specific to that domain": what it names is elsewhere (not "this project's
...")."""
DEMONSTRATIVE_PRONOUN = re.compile(
    r"\bsuch an?\b|^such\s+\w+|\b(?:these|those)\s+(?:first|instead|too|again|here|there)\b"
    r"|\b(?:these|those)\s*[.!]?$",
    _I,
)
""""Update these first", "after such a violation", "Such exceptions should ...": what they
point at is elsewhere."""
EXAMPLE = re.compile(r"^(?:for example|for instance|e\.g\b|example\b|as an example|like this)", _I)
EXAMPLE_LABEL = re.compile(
    r"^(?:prefer|avoid|do|don'?t|good|bad|correct|incorrect|wrong|right|yes|no)\s*:?\s+"
    r"(?=[\"'\u201c]|\S*[{};=(]|function\b|const\b|let\b|def\b|class\b|import\b)",
    _I,
)
"""An upper-case label before quoted or code text ("PREFER function f() {...}", "AVOID
"..."): one side of an example pair. Case matters: "Avoid global state" is a rule."""
NEVER_OMIT = re.compile(
    r"^\W*(?:never|do\s+not|don'?t)\s+(?:miss|forget|neglect|fail)\s+(?:(?:the\s+)?"
    r"(?:opportunit(?:y|ies)|chances?)\s+)?to\s+(?P<act>.+)$",
    _I,
)
""""Don't miss opportunities to X", "never forget to X": X, said with two negations (a rule
that affirms X, compared as "always X" is)."""
KEBAB_LABEL = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)+:\s+", _I)
""""dont-ignore-errors: Guidance on ...": a name (of a rule file), not a rule's force."""
HISTORY = re.compile(
    r"\b(?:we|i) (?:added|fixed|removed|changed|introduced|updated|released|deprecated|moved"
    r"|renamed|migrated|switched|replaced)\b|\b(?:was|were|has been|have been) (?:added|fixed"
    r"|removed|introduced|deprecated|renamed|moved|replaced|released)\b|\bpreviously\b"
    r"|\bused to\b|\bno longer\b|\bwill be (?:added|supported|removed|available|released)\b"
    r"|(?<!^)\bnow\b|\b(?:todo|tbd|coming soon|in the future|planned|roadmap"
    r"|work in progress)\b|#\d+\b"
    r"|\b(?:should|could|would)(?:n'?t| not)? have\s+[a-z]+(?:ed|en|wn)\b",
    _I,
)
"""What changed, what is planned, or what should have been ("I should have verified ...")."""
WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*")
CODE_SPAN = re.compile(r"`[^`\n]*`")
REFERENCE_LABEL = re.compile(r"^[^:`]{1,40}:\s")
TOPIC_LABEL = re.compile(r"^[A-Za-z][^:`.!?]{0,30}:\s+")
DESCRIBED_VALUE = re.compile(
    r"^`[^`]+`\s*(?:[\u2014\u2013:]|-\s)|^`[^`]+`,\s+(?!(?:not|and|or|but|then|so)\b|`)"
)
"""```False` — never use strict mode``: an option's value described, not a rule. So is a
parameter and what it is for, after a comma ("`max_connections`, maximum number of
allowable connections, or `None` for no limits"); a code span listed with others ("`ruff`,
`mypy` and ...") or set against one ("`uv`, not `pip`, ...") is a subject."""
PARENTHESIS = re.compile(r"\s*\([^()]*\)")
NO_NEED = re.compile(r"^no\b.*\b(?:required|needed|necessary)\b", _I)
""""No additional configuration is required": the absence of a rule."""
NOUN_SUBJECT = re.compile(
    r"^\w+(?:\s+\w+)?\s+(?:is|are|was|were|has|have|can|will|does|do not|don't)\b", _I
)
""""Store tests are located in ...": the first word is a noun, not an imperative verb."""
RELATIVE_MODAL = re.compile(
    r"\b((?:that|who|which|whose \w+)) (?:must|should|shall|needs? to|has to|have to)"
    r"(?: not| never| always)?\b",
    _I,
)
"""A modal inside a restrictive relative clause ("a server that must not ..."): the
sentence's own force is elsewhere, or it has none."""
EMBEDDED_MODAL = re.compile(
    rf"(?<=\w )((?:what|how|whether|when|where|why) (?:the |a |an )?[\w.-]+)"
    rf" (?:should|must|shall)(?:{_NT}| not)?(?: and (?:should|must|shall)(?:{_NT}| not)?)?\b",
    _I,
)
"""A modal inside a question a sentence embeds ("beliefs about what FastMCP should and
shouldn't do", "it explains how the client should retry"): asked about, not required. The
sentence's first word never opens it ("What you must never do is ..." is a rule), and it is
read only in a sentence that opens on its subject (:data:`SUBJECT_FIRST`): an imperative
keeps its force ("Decide how the API should behave before writing code")."""
SUBJECT_FIRST = re.compile(
    r"^(?:the|a|an|our|their|its|this|these|those|we|they|it|he|she|you|i|some|many|most|each"
    r"|every|all|no)\b",
    _I,
)
"""A sentence that opens on its subject (a determiner or a pronoun), not on a verb."""
CONNECTIVE = re.compile(
    r"^(?:however|therefore|thus|hence|also|instead|otherwise|additionally|furthermore"
    r"|moreover|likewise|similarly|then|now|so|but|and|in general|in practice"
    r"|as (?:mentioned|noted|said)(?: above| before| earlier)?|(?:please )?note that"
    r"|(?:please )?keep in mind that|(?:always )?remember that)\s*,?\s+(?=\S)",
    _I,
)
"""Words that tie a sentence to the text around it ("However, it must ...", "Keep in mind
that ..."): what follows continues the text before it, and a title goes without them."""
BACK_CASE = re.compile(r"^(?:in|for) (?:this|that|such a|either|both) cases?\b", _I)
""""In this case, you must ...": the case is the one the sentence before describes."""
PRONOUN_SUBJECT = re.compile(
    r"^(?:it|its|their|this|that|these|those|they|he|she)\b(?!\s+(?:is|are) (?:called|short))",
    _I,
)
FORCE_WORD = re.compile(rf"^(?:never|always|just|only|do{_NT}|do not)\s+", _I)
"""A word of force before an imperative's verb ("Never do this")."""
PRONOUN_OBJECT = re.compile(
    r"^\w+\s+(?:(?:it|them)\b(?!\s+(?:is|are)\b)|(?:this|that|these|those)(?=\s*[^\w\s`]|\s*$"
    r"|\s+(?:to|in|on|for|with|from|at|by|when|if|unless|again|first|either|too|instead)\b))",
    _I,
)
""""Keep them concise", "Ensure it contributes", after a word of force ("Never do this to
`initialize`"): what the instruction is about is elsewhere. *this* before a noun ("follow
this project's conventions") is a determiner, not the object."""
ELLIPSIS = re.compile(rf"^(?:do{_NT}|do not|never|always)\s*[,.;:]", _I)
POINTER = re.compile(
    r"^\W*the\s+following\b"
    r"|\b(?:above|below|previous|preceding|following)\s+(?:section|sections|list|table|steps?"
    r"|example)\b|\b(?:the|these|those)\s+\w+(?:\s+\w+)?\s+(?:above|below)\b"
    r"|\b(?:above|below)\s*[.:]?$|,\s*either\s*[.!]?$"
    r"|\b(?:described|outlined|defined|specified|explained|detailed)\s+(?:here|herein"
    r"|in\s+this\s+(?:document|file|rule|guide|section))\b",
    _I,
)
"""A rule that points elsewhere in its document ("Follow the section above", "The following
protocol is mandatory", "the canonical process described here")."""
APPLY_WITH = re.compile(
    r"^(?:for\s+[^,]{1,40},\s*)?(?:(?:always|also)\s+)?(?:apply|use|read|load|combine)\s+(?:this\s+(?:rule\s+)?)?"
    r"(?:alongside|together\s+with|with|in\s+combination\s+with)\s+(?:the\s+)?"
    r"`?[\w.-]*[a-z]-[a-z][\w.-]*`?",
    _I,
)
"""A pointer to the documents to read with this one ("Apply alongside session-first-workflow
...", "For resource management, apply with resource-management-protocol rule")."""
QUOTED = re.compile(r"[\"\u201c][^\"\u201d]+[\"\u201d]")
"""A quoted phrase: a sentence that is mostly quotes lists phrases, it states nothing."""
PRONOUN_OBJECTS = frozenset({"it", "them", "this", "that", "these", "those", "one", "so"})
SHORT_RULE_WORDS = 6
MARKERS = re.compile(
    r"^(?:\W{1,3}\s*)?(?:(?:important|note|nb|tip|rule|critical|remember|warning|caution"
    r"|key point|reminder|golden rule)\b\s*[:!.-]\s*)+",
    _I,
)

PROGRAM_DOES = re.compile(
    r"^(?:the |this |that |our )?(?:`[^`]+`|[\w-]+\.\w{1,4}|(?:it|this|script|command|server"
    r"|client|tool|cli|program|app|hook|workflow|action|pipeline|bot|job|installer)\b)"
    r"(?: \w+){0,2} (?:will|then|does|also)(?: \w+)?\s*:$",
    _I,
)
"""A lead-in that says what a program does ("The `client.py` will:", "The script then:"):
its items describe the program's steps, which nobody is told to do."""
