"""Calls Plaza over SOAP with python3-zeep, a SOAP client no one here wrote, from Plaza's own WSDL.

Reads the scenario (URL, keys, sessions, ids) as JSON on stdin; prints what each call returned as
JSON on stdout, for test/soap-zeep.test.ts to compare with the JSON route.
"""
import datetime
import json
import sys

import requests
import zeep
from zeep.helpers import serialize_object


def client(url, headers):
    session = requests.Session()
    session.headers.update(headers)
    settings = zeep.Settings(strict=True, raw_response=False)
    return zeep.Client(url + "/soap11?wsdl", transport=zeep.Transport(session=session), settings=settings)


def plain(value):
    return json.loads(json.dumps(serialize_object(value), default=lambda v: v.isoformat() if isinstance(v, (datetime.date, datetime.datetime)) else str(v)))


def main():
    given = json.load(sys.stdin)
    url = given["url"]
    admin = client(url, {"Authorization": "Bearer " + given["adminKey"]})
    ann = client(url, {"X-ss-id": given["ann"]["token"]})
    anonymous = client(url, {})
    out = {}

    created = admin.service.CreateUser(FirstName="Zed", LastName="Zeep", Interests={"string": ["python", "soap"]}, CreatedTime=datetime.datetime(2024, 11, 22, 10, 0, tzinfo=datetime.timezone.utc))
    out["CreateUser"] = plain(created)
    out["FindUser"] = plain(admin.service.FindUser(Id=created.User.Id))
    out["CreateConnection"] = plain(ann.service.CreateConnection(OwnerId=given["ann"]["userId"], ConnectToId=given["bob"]["userId"], IsFavorite=False))
    comment = ann.service.CreateComment(PostId=given["postId"], AuthorId=given["ann"]["userId"], Content="zeep says hello", CreatedTime=datetime.datetime(2024, 2, 3, 4, 5, 6, tzinfo=datetime.timezone.utc))
    out["CreateComment"] = plain(comment)
    out["FindComment"] = plain(ann.service.FindComment(Id=comment.Comment.Id))
    out["Registration"] = plain(anonymous.service.Registration(UserName=given["newUserName"], Password="correct horse battery", AutoLogin=True))
    out["Auth"] = plain(anonymous.service.Auth(provider="credentials", UserName=given["newUserName"], Password="correct horse battery"))
    out["invalid"] = plain(admin.service.CreateUser(FirstName="NoLastName"))
    out["forbidden"] = plain(ann.service.CreateUser(FirstName="Not", LastName="Admin"))
    out["Resources"] = plain(anonymous.service.Resources())
    out["AllUsers"] = plain(admin.service.AllUsers(Offset=0, Limit=1000))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
