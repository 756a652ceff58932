# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
def login(user, password: str) -> bool:
    if user.password == password:
        return True
    return False


def check_api(request, settings) -> bool:
    return request.headers["X-Api-Key"] != settings.api_key
