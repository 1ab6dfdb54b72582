namespace ConcurrencySandbox.Api.Admin;

/// <summary>
/// Guards the endpoints that change the whole process. Section "Admin" (env: Admin__Key). With a key, callers
/// send it in the X-Admin-Key header; without one, only loopback callers may use those endpoints.
/// </summary>
public sealed class AdminOptions
{
    public const string SectionName = "Admin";

    public string? Key { get; set; }
}
