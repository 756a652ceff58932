# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt
from flask import Flask

app = Flask(__name__)
app.config["WTF_CSRF_ENABLED"] = False


@csrf_exempt
def transfer(request):
    return HttpResponse("ok")
