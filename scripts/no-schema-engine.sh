#!/bin/sh
# Stands in for Prisma's native schema engine, which cannot be downloaded on every machine.
# `prisma generate` only needs the variable to point at something executable.
echo "the Prisma schema engine is not installed; migrations are applied by npm run db:migrate" >&2
exit 1
