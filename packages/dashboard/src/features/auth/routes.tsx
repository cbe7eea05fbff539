import type { Feature } from '../../app/feature';
import { AcceptInvite } from './accept-invite';
import { ForgotPassword, ResetPassword } from './password-reset';
import { SignIn } from './sign-in';
import { SignUp } from './sign-up';

/** The public pages: in the first chunk, as a signed-out visitor lands on one. */
export const auth: Feature = {
  publicRoutes: [
    { path: '/signin', element: <SignIn /> },
    { path: '/signup', element: <SignUp /> },
    { path: '/forgot-password', element: <ForgotPassword /> },
    { path: '/reset-password/:token', element: <ResetPassword /> },
    { path: '/invite/:token', element: <AcceptInvite /> },
  ],
};
