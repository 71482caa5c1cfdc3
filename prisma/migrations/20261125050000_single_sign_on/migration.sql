-- CreateEnum
CREATE TYPE "SignInMethod" AS ENUM ('password', 'oidc', 'openshift');

-- AlterTable
ALTER TABLE "User" ADD COLUMN     "authSource" "SignInMethod" NOT NULL DEFAULT 'password',
ADD COLUMN     "externalId" TEXT,
ADD COLUMN     "lastSignInAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "Session" ADD COLUMN     "method" "SignInMethod" NOT NULL DEFAULT 'password';

-- CreateIndex
CREATE UNIQUE INDEX "User_externalId_key" ON "User"("externalId");

