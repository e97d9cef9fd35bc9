"""What a sentence of a conversation is: a statement, a request, a question or a
pleasantry (clean writes from ``/context``).

The extractive summary and the memory cards use this to keep to what the person *stated*:

- a **pleasantry** or bare acknowledgement (「好的」, 「对，谢谢」, "Right.", "Yes please.",
  "Let me think about it.") says nothing to remember and is never summarised;
- a **request** asks the assistant to do something (「帮我…」, 「提醒我…」, "can you …",
  "please …", "help me …"). From the person it is what the conversation is for: the
  summary's Goal, rewritten as an instruction (greeting, "also", "can you" and the question
  mark dropped: "Also, can you remind me what I need to pay before tomorrow?" becomes
  "Remind me what I need to pay before tomorrow"). It is never a memory card;
- any other **question** (ends with ? or ？) asks, it does not state: never summarised,
  never carded;
- everything else is a **statement**.
"""

from __future__ import annotations

import re
from typing import Final, Literal

Form = Literal["statement", "request", "question", "pleasantry"]

# Words and phrases that acknowledge, thank or put off without saying anything; a sentence
# made only of these (and punctuation) is a pleasantry.
_ACKNOWLEDGEMENT: Final = re.compile(
    r"好的?|好吧|嗯+|哦+|噢|啊|对的?|是的?|行|可以|没问题|谢谢你?|多谢|感谢|收到|明白了?|知道了|了解"
    r"|不客气|没事|再说吧|以后再说|回头再说|我想想|让我想想|考虑一下"
    r"|\b(?:ok(?:ay)?|right|sure(?: thing)?|yes|yeah|yep|no|nope|thanks?(?: a lot)?|thank you"
    r"|please|got it|great|cool|fine|alright|all right|sounds good|perfect|of course"
    r"|hmm+|hm+|maybe|not yet|makes sense|understood|noted|i see|let me think(?: about it)?"
    r"|you'?re welcome|no problem|good idea|will do|later|good night|bye)\b",
    re.I,
)
_LEFTOVER: Final = re.compile(r"[\s\W_]+", re.UNICODE)
_REQUEST: Final = re.compile(
    r"帮我|帮忙|请你|请帮|麻烦你|你能|你可以|能不能|可不可以|提醒我"
    r"|\b(?:can|could|would|will) you\b|\bplease\b|\bhelp me\b|\bremind me\b|\btell me\b"
    r"|\bI need (?:some |your )?help\b|\bI'?d like you to\b",
    re.I,
)
# Stripped from the front of a request, in a loop: greetings, discourse markers, "can you".
_REQUEST_LEAD: Final = re.compile(
    r"^(?:hi|hello|hey|你好|嗨|also|and|so|ok(?:ay)?|另外|还有|那|那么|对了"
    r"|(?:can|could|would|will) you|please|请你?|麻烦你|你能|你可以|能不能|可不可以)"
    r"(?![A-Za-z])[\s,，.。!！:：]*",
    re.I,
)
_FILLER_LEAD: Final = re.compile(
    r"^(?:嗯+|哦+|呃+|好的?|行|对|um+|uh+|well|also|另外|ok(?:ay)?|yes|yeah|no)"
    r"(?![A-Za-z])[\s,，.。!！]+",
    re.I,
)
_QUESTION_END: Final = re.compile(r"[?？]\s*$")
_CONCERN: Final = re.compile(
    r"急|紧急|很重要|担心|焦虑|着急|压力|害怕|来不及|逾期"
    r"|\burgent(?:ly)?\b|\bworr(?:y|ied|ies)\b|\banxious\b|\bstressed\b|\boverdue\b"
    r"|\bimportant\b|\bdeadline\b",
    re.I,
)


def is_pleasantry(sentence: str) -> bool:
    """Only acknowledgements, thanks or put-offs, whatever the punctuation."""
    rest = _LEFTOVER.sub("", _ACKNOWLEDGEMENT.sub("", sentence))
    return not rest


def form_of(sentence: str) -> Form:
    """Which of the module docstring's four a sentence is."""
    if is_pleasantry(sentence):
        return "pleasantry"
    if _REQUEST.search(sentence):
        return "request"
    if _QUESTION_END.search(sentence):
        return "question"
    return "statement"


def as_instruction(request: str) -> str:
    """A request without greeting, "also", "can you" or the question mark."""
    text = request.strip()
    while True:
        shorter = _REQUEST_LEAD.sub("", text, count=1)
        if shorter == text:
            break
        text = shorter
    text = re.sub(r"[?？]+\s*$", "", text).rstrip()
    text = re.sub(r"吗$", "", text) if re.search(r"[\u3400-\u9fff]吗$", text) else text
    return text[:1].upper() + text[1:] if text else request.strip()


def without_filler(sentence: str) -> str:
    """A statement without a leading 「嗯，」, 「好，」, "Um,", "No," or "Also,"."""
    return _FILLER_LEAD.sub("", sentence.strip()) or sentence.strip()


def voices_concern(sentence: str) -> bool:
    """Says something is urgent, important or worrying (seed 004 §4.4's 紧急、担心)."""
    return bool(_CONCERN.search(sentence))
