using ConcurrencySandbox.Api;

var app = SandboxApp.Build(args);
await app.RunAsync();
