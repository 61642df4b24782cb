"""The server's few sentences for people, in the languages of the web client.

Error messages on the WebSocket carry ``message`` in the table's language and ``detail``, the
precise English sentence (for developers and logs). An ``illegal`` error keeps the engine's
own sentence as its message: it names the card and the rule.
"""

from __future__ import annotations

from typing import Final

from tapete.server.room import CHAT_MAX_CHARS

__all__ = ["ERRORS", "LANGUAGES", "NOT_FOUND", "error_text", "preferred_language"]

LANGUAGES: Final = ("es", "pt", "en")

ERRORS: Final[dict[str, dict[str, str]]] = {
    "bad_json": {
        "es": "El mensaje no es JSON válido.",
        "pt": "A mensagem não é JSON válido.",
        "en": "The message is not valid JSON.",
    },
    "bad_message": {
        "es": "El mensaje no tiene la forma esperada.",
        "pt": "A mensagem não tem a forma esperada.",
        "en": "The message does not have the expected form.",
    },
    "too_large": {
        "es": "El mensaje es demasiado grande.",
        "pt": "A mensagem é grande demais.",
        "en": "The message is too large.",
    },
    "rate_limited": {
        "es": "Demasiados mensajes seguidos: espera un momento.",
        "pt": "Mensagens demais seguidas: espere um momento.",
        "en": "Too many messages in a row: wait a moment.",
    },
    "chat_too_long": {
        "es": f"Un mensaje del chat puede tener como mucho {CHAT_MAX_CHARS} caracteres.",
        "pt": f"Uma mensagem do chat pode ter no máximo {CHAT_MAX_CHARS} caracteres.",
        "en": f"A chat message may have at most {CHAT_MAX_CHARS} characters.",
    },
    "not_your_turn": {
        "es": "Ahora no es tu turno.",
        "pt": "Agora não é a sua vez.",
        "en": "It is not your turn now.",
    },
    "stale_version": {
        "es": "La mesa ha cambiado: mira de nuevo y vuelve a elegir.",
        "pt": "A mesa mudou: veja de novo e escolha outra vez.",
        "en": "The table has changed: look again and choose again.",
    },
    "unknown_table": {
        "es": "Esa mesa no existe.",
        "pt": "Essa mesa não existe.",
        "en": "There is no such table.",
    },
    "too_many": {
        # (a table's sockets and the lobby's alike: ``detail`` says which bound it met)
        "es": "Hay demasiadas conexiones: prueba más tarde.",
        "pt": "Há conexões demais: tente mais tarde.",
        "en": "There are too many connections: try again later.",
    },
    "not_saved": {
        "es": "El servidor no pudo guardar esta jugada: inténtalo de nuevo.",
        "pt": "O servidor não conseguiu guardar esta jogada: tente de novo.",
        "en": "The server could not save this action: try again.",
    },
    "unavailable": {
        "es": "El servidor no puede usar su base de datos ahora: vuelve a conectar en un momento.",
        "pt": "O servidor não consegue usar a sua base de dados agora: reconecte num momento.",
        "en": "The server cannot use its database just now: reconnect in a moment.",
    },
    "not_started": {
        "es": "La partida empieza cuando todos los asientos están ocupados.",
        "pt": "A partida começa quando todos os lugares estão ocupados.",
        "en": "The game starts when every seat is taken.",
    },
    "no_spectators": {
        "es": "En esta mesa no se puede mirar.",
        "pt": "Nesta mesa não se pode assistir.",
        "en": "This table does not allow spectators.",
    },
    "not_seated": {
        "es": "Solo las personas sentadas a la mesa pueden escribir en el chat.",
        "pt": "Só as pessoas sentadas à mesa podem escrever no chat.",
        "en": "Only the people seated at the table may chat.",
    },
    "bad_token": {
        "es": "Esta clave no es de esta mesa: solo puedes mirar.",
        "pt": "Esta chave não é desta mesa: só pode assistir.",
        "en": "This key does not belong to this table: you can only watch.",
    },
}


def error_text(code: str, language: str, detail: str) -> str:
    """The sentence a person reads for an error ``code`` (``detail`` for ``illegal`` and
    unknown codes)."""
    if code == "illegal":
        return detail
    texts = ERRORS.get(code)
    if texts is None:
        return detail
    return texts.get(language) or texts["en"]


def preferred_language(accept_language: str | None) -> str:
    """The first language of an ``Accept-Language`` header (by its ``q`` weights) that the
    web client speaks, else English: the web client's own rule (``initialLang``)."""
    weighted: list[tuple[float, int, str]] = []
    for n, part in enumerate((accept_language or "")[:1000].split(",")):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        weighted.append((-q, n, tag.strip()[:2].lower()))
    for q, _, lang in sorted(weighted):
        if q < 0 and lang in LANGUAGES:
            return lang
    return "en"


#: the page for an address that is no page of Tapete's: (title, sentence, link back)
NOT_FOUND: Final[dict[str, tuple[str, str, str]]] = {
    "es": (
        "Página no encontrada",
        "No hay nada en esta dirección. Las mesas se abren desde la página principal, "
        "o con el enlace de invitación completo.",
        "Ir a Tapete",
    ),
    "pt": (
        "Página não encontrada",
        "Não há nada neste endereço. As mesas abrem-se a partir da página principal, "
        "ou com o link de convite completo.",
        "Ir para o Tapete",
    ),
    "en": (
        "Page not found",
        "There is nothing at this address. Tables open from the main page, or with the "
        "whole invitation link.",
        "Go to Tapete",
    ),
}
