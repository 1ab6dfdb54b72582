#!/usr/bin/env bash
# Builds offline stand-ins for the Dockerfile's two base images when no registry is reachable:
#   concurrencysandbox/dotnet-sdk:10.0-offline      for SDK_IMAGE     (stand-in for mcr.microsoft.com/dotnet/sdk:10.0)
#   concurrencysandbox/dotnet-aspnet:10.0-offline   for RUNTIME_IMAGE (stand-in for mcr.microsoft.com/dotnet/aspnet:10.0)
# Both start from a Debian root file system made by debootstrap from this machine's own apt sources (mirror and
# suite are read from its apt configuration) and carry the .NET installation this machine has. The SDK stand-in
# also carries this machine's CA trust store and NuGet configuration, so `dotnet restore` inside a build reaches the
# same package source as on the host. The runtime stand-in is shaped like the official aspnet image: only the
# runtimes, non-root user `app` (uid 1654), APP_UID and ASPNETCORE_HTTP_PORTS=8080.
# The tags are our own, not the official names, so nobody mistakes a stand-in for Microsoft's image; pass them as
# build arguments (docs/notebook/deploy.md). It also builds, on the same root file system, compose's monitoring image:
#   concurrencysandbox/prometheus:offline            Debian's own prometheus package (apt-get download from this
#                                                    machine's apt sources, unpacked), run as nobody, data in /prometheus
# Usage: build-base-images.sh [--force] [dotnet] [prometheus]   (default: both). Images already present are kept
# unless --force is given. Needs root and docker.
set -euo pipefail

SDK_TAG=concurrencysandbox/dotnet-sdk:10.0-offline
RUNTIME_TAG=concurrencysandbox/dotnet-aspnet:10.0-offline
PROMETHEUS_TAG=concurrencysandbox/prometheus:offline
ROOTFS_TAG=concurrencysandbox/debian-rootfs:offline
APP_UID=1654
force=0
wanted=()
for argument in "$@"; do
  case $argument in
    --force) force=1 ;;
    dotnet | prometheus) wanted+=("$argument") ;;
    *) echo "base images: unknown argument '$argument' (usage: build-base-images.sh [--force] [dotnet] [prometheus])" >&2; exit 2 ;;
  esac
done
[ ${#wanted[@]} -gt 0 ] || wanted=(dotnet prometheus)

have_image() { docker image inspect "$1" >/dev/null 2>&1; }
build_dotnet=0 build_prometheus=0
for image in "${wanted[@]}"; do
  case $image in
    dotnet) { [ "$force" -eq 1 ] || ! have_image "$SDK_TAG" || ! have_image "$RUNTIME_TAG"; } && build_dotnet=1 ;;
    prometheus) { [ "$force" -eq 1 ] || ! have_image "$PROMETHEUS_TAG"; } && build_prometheus=1 ;;
  esac
done
if [ "$build_dotnet" -eq 0 ] && [ "$build_prometheus" -eq 0 ]; then
  echo "base images: ${wanted[*]} already present (--force rebuilds them)"
  exit 0
fi

if [ "$build_dotnet" -eq 1 ]; then
  dotnet_root=$(dirname "$(readlink -f "$(command -v dotnet)")")
  runtime_version=$(dotnet --list-runtimes | awk '$1 == "Microsoft.AspNetCore.App" { v = $2 } END { print v }')
  [ -n "$runtime_version" ] || { echo "base images: no ASP.NET Core runtime in $dotnet_root" >&2; exit 1; }
fi

# The suite this machine runs, and the first apt source serving it (one-line .list or deb822 .sources format).
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}")
mirror=$(
  { cat /etc/apt/sources.list 2>/dev/null || true; } | awk -v s="$suite" '$1 == "deb" && $3 == s { print $2; exit }'
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -e "$f" ] || continue
    awk -v s="$suite" 'BEGIN { RS = ""; FS = "\n" }
      { uri = ""; ok = 0
        for (i = 1; i <= NF; i++) {
          if ($i ~ /^URIs:/) { split($i, a, " "); uri = a[2] }
          if ($i ~ /^Suites:/) { n = split($i, b, " "); for (j = 2; j <= n; j++) if (b[j] == s) ok = 1 }
        }
        if (ok && uri != "") { print uri; exit } }' "$f"
  done
)
mirror=$(head -n 1 <<<"$mirror")
[ -n "$mirror" ] || { echo "base images: no apt source for suite $suite in /etc/apt" >&2; exit 1; }

command -v debootstrap >/dev/null || apt-get install -y debootstrap
work=$(mktemp -d)
containers=()
cleanup() {
  for c in "${containers[@]}"; do docker rm -f "$c" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT

echo "base images: debootstrap $suite from the apt source $mirror"
# What the official runtime-deps image installs, plus bash for the compose health check.
debootstrap --variant=minbase --include=ca-certificates,libicu72,libssl3,tzdata,zlib1g \
  "$suite" "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
  || { tail -n 20 "$work/debootstrap.log" >&2; exit 1; }
rm -rf "$work"/rootfs/var/cache/apt/archives/*.deb "$work"/rootfs/var/lib/apt/lists/*
tar -C "$work/rootfs" -c . | docker import - "$ROOTFS_TAG" >/dev/null

# Commits a container of $ROOTFS_TAG as $1: the folder $2 (if any) is copied to / first, then $3 runs, then the
# tar stream on stdin is unpacked into /usr/share/dotnet; the remaining arguments are `docker commit` changes.
commit_image() {
  local tag=$1 extra=$2 setup=$3 id; shift 3
  id=$(docker create "$ROOTFS_TAG" bash -c "mkdir -p /usr/share/dotnet && ln -s /usr/share/dotnet/dotnet /usr/bin/dotnet && $setup")
  containers+=("$id")
  [ -n "$extra" ] && tar -C "$extra" -c . | docker cp - "$id:/"
  docker start -a "$id" >/dev/null
  docker cp - "$id:/usr/share/dotnet"
  docker commit --change "ENV DOTNET_RUNNING_IN_CONTAINER=true" --change "ENV DOTNET_VERSION=$runtime_version" \
    --change "ENV ASPNET_VERSION=$runtime_version" --change "ENV APP_UID=$APP_UID" --change "ENV ASPNETCORE_HTTP_PORTS=8080" \
    "$@" --change 'CMD ["bash"]' "$id" "$tag" >/dev/null
  docker rm "$id" >/dev/null
  echo "base images: built $tag"
}
add_app_user="groupadd --system --gid=$APP_UID app && useradd --no-log-init --system --uid=$APP_UID --gid=app --create-home app"

if [ "$build_dotnet" -eq 1 ]; then
  # Runtime: the host and the shared runtimes only, no SDK.
  tar -C "$dotnet_root" -c dotnet host shared LICENSE.txt ThirdPartyNotices.txt \
    | commit_image "$RUNTIME_TAG" "" "$add_app_user"

  # SDK: the whole installation, this machine's extra CA certificates and its NuGet configuration and NUGET_* settings.
  mkdir -p "$work/extra/usr/local/share/ca-certificates" "$work/extra/root/.nuget/NuGet"
  cp /usr/local/share/ca-certificates/*.crt "$work/extra/usr/local/share/ca-certificates/" 2>/dev/null || true
  nuget_config="$HOME/.nuget/NuGet/NuGet.Config"
  [ -f "$nuget_config" ] && cp "$nuget_config" "$work/extra/root/.nuget/NuGet/NuGet.Config"
  sdk_env=(--change "ENV DOTNET_NOLOGO=1" --change "ENV DOTNET_CLI_TELEMETRY_OPTOUT=1" --change "ENV DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1")
  while IFS='=' read -r name value; do
    sdk_env+=(--change "ENV $name=$value")
  done < <(env | grep -E '^NUGET_[A-Z_]+=' || true)
  tar -C "$dotnet_root" -c . \
    | commit_image "$SDK_TAG" "$work/extra" "update-ca-certificates >/dev/null && $add_app_user" "${sdk_env[@]}"
fi

# Prometheus: Debian's package unpacked onto the root file system (its binaries need only libc), as nobody.
if [ "$build_prometheus" -eq 1 ]; then
  mkdir -p "$work/deb" "$work/prometheus"
  (cd "$work/deb" && apt-get download prometheus >"$work/apt-download.log" 2>&1) \
    || { tail -n 5 "$work/apt-download.log" >&2; echo "base images: apt-get download prometheus failed (apt-get update first?)" >&2; exit 1; }
  dpkg-deb -x "$work"/deb/prometheus_*.deb "$work/prometheus"
  version=$(dpkg-deb -f "$work"/deb/prometheus_*.deb Version)
  id=$(docker create "$ROOTFS_TAG" bash -c "mkdir -p /prometheus && chown nobody:nogroup /prometheus")
  containers+=("$id")
  # Only the program and its configuration: the package's /lib (systemd unit) would collide with merged /usr.
  tar -C "$work/prometheus" -c usr etc/prometheus | docker cp - "$id:/"
  docker start -a "$id" >/dev/null
  docker commit --change "USER nobody" --change "WORKDIR /prometheus" --change "EXPOSE 9090" \
    --change "LABEL org.opencontainers.image.version=$version" \
    --change 'ENTRYPOINT ["/usr/bin/prometheus"]' \
    --change 'CMD ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"]' "$id" "$PROMETHEUS_TAG" >/dev/null
  docker rm "$id" >/dev/null
  echo "base images: built $PROMETHEUS_TAG (Debian prometheus $version)"
fi
docker image rm "$ROOTFS_TAG" >/dev/null
