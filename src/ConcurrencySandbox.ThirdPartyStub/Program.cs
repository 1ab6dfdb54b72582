using ConcurrencySandbox.ThirdPartyStub;

var app = StubApp.Build(args);
await app.RunAsync();
