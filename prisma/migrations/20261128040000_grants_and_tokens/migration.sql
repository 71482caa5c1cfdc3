-- Grants: each account other than an admin holds roles over scopes of the fleet; API tokens are kept
-- as SHA-256 hashes of their secrets; service accounts sign in through tokens only.
-- AlterEnum
ALTER TYPE "SignInMethod" ADD VALUE 'service';

-- AlterTable
ALTER TABLE "User" ADD COLUMN     "createdBy" TEXT;

-- CreateTable
CREATE TABLE "AccessGrant" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "role" "Role" NOT NULL,
    "scope" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AccessGrant_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiToken" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "role" "Role",
    "scope" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "revokedAt" TIMESTAMP(3),
    "lastUsedAt" TIMESTAMP(3),
    "lastUsedIp" TEXT,

    CONSTRAINT "ApiToken_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "AccessGrant_userId_role_scope_key" ON "AccessGrant"("userId", "role", "scope");

-- CreateIndex
CREATE UNIQUE INDEX "ApiToken_secretHash_key" ON "ApiToken"("secretHash");

-- CreateIndex
CREATE INDEX "ApiToken_userId_idx" ON "ApiToken"("userId");

-- AddForeignKey
ALTER TABLE "AccessGrant" ADD CONSTRAINT "AccessGrant_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApiToken" ADD CONSTRAINT "ApiToken_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Every account that is not an admin holds its role over the whole fleet, as it did before grants:
-- nothing changes for an existing install.
INSERT INTO "AccessGrant" ("id", "userId", "role", "scope")
SELECT gen_random_uuid(), "id", "role", '' FROM "User" WHERE "role" <> 'admin';
