from sagas import Money


def eur(minor: int) -> Money:
    return Money.of(minor, "EUR")


def usd(minor: int) -> Money:
    return Money.of(minor, "USD")
