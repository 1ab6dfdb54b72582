namespace ConcurrencySandbox.Tests;
