# Images for the sandbox. Build from the repository root:
#   docker build -t concurrencysandbox/api:local .                        (default target: api)
#   docker build -t concurrencysandbox/stub:local --target stub .
#   docker build -t concurrencysandbox/loadrunner:local --target loadrunner .
# docs/deploy-at-n-cores.md describes the environment variables each image reads.
# No "# syntax=" line: BuildKit would fetch that frontend from a registry first, which fails offline.

# The base images, overridable with --build-arg to use a mirror or the offline stand-ins that
# deploy/build-base-images.sh builds.
ARG SDK_IMAGE=mcr.microsoft.com/dotnet/sdk:10.0
ARG RUNTIME_IMAGE=mcr.microsoft.com/dotnet/aspnet:10.0

FROM ${SDK_IMAGE} AS build
WORKDIR /src
# Restore layer: only the files restore reads, so editing source code keeps this layer cached.
COPY global.json Directory.Build.props Directory.Packages.props ./
COPY src/ConcurrencySandbox.Contracts/ConcurrencySandbox.Contracts.csproj src/ConcurrencySandbox.Contracts/
COPY src/ConcurrencySandbox.Platform/ConcurrencySandbox.Platform.csproj src/ConcurrencySandbox.Platform/
COPY src/ConcurrencySandbox.Experiments/ConcurrencySandbox.Experiments.csproj src/ConcurrencySandbox.Experiments/
COPY src/ConcurrencySandbox.Validation/ConcurrencySandbox.Validation.csproj src/ConcurrencySandbox.Validation/
COPY src/ConcurrencySandbox.WebHosting/ConcurrencySandbox.WebHosting.csproj src/ConcurrencySandbox.WebHosting/
COPY src/ConcurrencySandbox.Api/ConcurrencySandbox.Api.csproj src/ConcurrencySandbox.Api/
COPY src/ConcurrencySandbox.ThirdPartyStub/ConcurrencySandbox.ThirdPartyStub.csproj src/ConcurrencySandbox.ThirdPartyStub/
COPY loadtests/ConcurrencySandbox.LoadTests.Engine/ConcurrencySandbox.LoadTests.Engine.csproj loadtests/ConcurrencySandbox.LoadTests.Engine/
COPY loadtests/ConcurrencySandbox.LoadTests.Diagnostics/ConcurrencySandbox.LoadTests.Diagnostics.csproj loadtests/ConcurrencySandbox.LoadTests.Diagnostics/
COPY loadtests/ConcurrencySandbox.LoadTests.Reports/ConcurrencySandbox.LoadTests.Reports.csproj loadtests/ConcurrencySandbox.LoadTests.Reports/
COPY loadtests/ConcurrencySandbox.LoadTests/ConcurrencySandbox.LoadTests.csproj loadtests/ConcurrencySandbox.LoadTests/
RUN dotnet restore src/ConcurrencySandbox.Api/ConcurrencySandbox.Api.csproj \
 && dotnet restore src/ConcurrencySandbox.ThirdPartyStub/ConcurrencySandbox.ThirdPartyStub.csproj \
 && dotnet restore loadtests/ConcurrencySandbox.LoadTests/ConcurrencySandbox.LoadTests.csproj
COPY . .

# The API's publish first; the stub's and the load runner's start from its compiled projects (the libraries they share,
# and the API itself, which the load runner carries), so building all three compiles each project once, not once per
# image (docs/notebook/deploy.md, "Images: one compile per project").
FROM build AS publish-api
RUN dotnet publish src/ConcurrencySandbox.Api/ConcurrencySandbox.Api.csproj -c Release --no-restore -p:UseAppHost=false -o /out/api

FROM publish-api AS publish-stub
RUN dotnet publish src/ConcurrencySandbox.ThirdPartyStub/ConcurrencySandbox.ThirdPartyStub.csproj -c Release --no-restore -p:UseAppHost=false -o /out/stub

FROM publish-api AS publish-loadrunner
RUN dotnet publish loadtests/ConcurrencySandbox.LoadTests/ConcurrencySandbox.LoadTests.csproj -c Release --no-restore -p:UseAppHost=false -o /out/loadrunner

# The ASP.NET runtime image; the load runner needs it too: its publish output carries the API in api/, which it can start.
FROM ${RUNTIME_IMAGE} AS runtime
WORKDIR /app
ENV ASPNETCORE_HTTP_PORTS=8080
EXPOSE 8080
# The image's non-root user "app" (uid 1654).
USER $APP_UID

FROM runtime AS stub
COPY --from=publish-stub /out/stub .
ENTRYPOINT ["dotnet", "ConcurrencySandbox.ThirdPartyStub.dll"]

FROM runtime AS loadrunner
COPY --from=publish-loadrunner /out/loadrunner .
ENTRYPOINT ["dotnet", "ConcurrencySandbox.LoadTests.dll"]

# Last stage: what a plain `docker build .` produces.
FROM runtime AS api
# The control plane (src/ConcurrencySandbox.Api/Control) binds to 127.0.0.1 by default, which inside a container
# nobody outside can reach; like port 8080 it listens on every interface here, reachable only where 5081 is
# published. PUT /api/threadpool and reset still refuse non-loopback callers unless Admin__Key is set.
ENV Control__Host=0.0.0.0
EXPOSE 5081
COPY --from=publish-api /out/api .
ENTRYPOINT ["dotnet", "ConcurrencySandbox.Api.dll"]
