# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
from django.http import HttpResponse
from django.views.decorators.csrf import csrf_protect


@csrf_protect
def transfer(request):
    return HttpResponse("ok")
